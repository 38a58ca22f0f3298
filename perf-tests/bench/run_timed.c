// run_timed OUT [VAR=VALUE...] -- CMD ARGS...: runs CMD with VAR=VALUE added to
// its environment (not to this launcher's: LD_PRELOAD goes to CMD only), waits
// for it and writes one line to OUT:
// "wall_ns maxrss_kib user_s sys_s status". Used by overhead.py instead of
// spawning from Python because Linux folds the pre-exec address space's peak
// RSS into ru_maxrss: a child exec'ed straight from Python would report at
// least Python's own 14 MiB. This launcher is a few hundred KiB.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int cmd = 2;
  while (cmd < argc && strcmp(argv[cmd], "--") != 0) ++cmd;
  if (cmd + 1 >= argc) {
    fprintf(stderr, "usage: %s OUT [VAR=VALUE...] -- CMD [ARGS...]\n", argv[0]);
    return 2;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pid_t pid = fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    for (int i = 2; i < cmd; ++i) putenv(argv[i]);
    execv(argv[cmd + 1], argv + cmd + 1);
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) return 127;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  FILE* out = fopen(argv[1], "w");
  if (!out) return 127;
  long long ns = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
  fprintf(out, "%lld %ld %.6f %.6f %d\n", ns, ru.ru_maxrss,
          ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
          ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, status);
  fclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
