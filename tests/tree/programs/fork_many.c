#define _DEFAULT_SOURCE
// fork_many N: waits for one byte on standard input (the watch is ready), then
// forks N children one after another, each living about 1 ms (it spins, so it
// has some CPU), and reaps each before the next; exits 0 when all exited 0.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  char go;
  if (read(0, &go, 1) != 1) return 2;
  int failed = 0;
  for (int i = 0; i < n; ++i) {
    pid_t pid = fork();
    if (pid < 0) return 3;
    if (pid == 0) {
      double until = now() + 0.001;
      while (now() < until) {
      }
      _exit(0);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  return failed ? 1 : 0;
}
