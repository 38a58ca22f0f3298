// exec_bare MS: lives MS milliseconds, then execs itself as "exec_bare count"
// without LD_PRELOAD, so the new image has no shim and no sampler of its own.
// "count" prints how many children the image inherited across the exec
// ("children N"): any child of any kind (__WALL), exited or not.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int count_children(void) {
  int n = 0;
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  FILE* f = fopen(path, "r");
  if (f) {
    int pid;
    while (fscanf(f, "%d", &pid) == 1) ++n;
    fclose(f);
  }
  // A zombie is still listed above until reaped; also ask wait itself.
  siginfo_t info;
  memset(&info, 0, sizeof info);
  if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT | __WALL) == 0 && info.si_pid != 0 &&
      n == 0)
    n = 1;
  return n;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "count") == 0) {
    printf("children %d\n", count_children());
    return 0;
  }
  long ms = argc > 1 ? atol(argv[1]) : 0;
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&t, NULL);
  char* args[] = {argv[0], "count", NULL};
  char* env[] = {"PATH=/usr/bin:/bin", NULL};
  execve("/proc/self/exe", args, env);
  return 127;
}
