// The floor of any sampler that wakes every INTERVAL ms: runs CMD as its
// child, wakes on account run's schedule (poll on CMD's pidfd with the time
// left to the next tick), does nothing in a tick, and appends its own CPU
// from before the spawn to CMD's end as a tree record, the keys account run's
// tree record uses for its sampler ("samples", "sampler_cpu_s"). overhead.sh
// runs it as "idle ticker" beside account run: what is left of account run's
// sampler CPU above it is the tick's work; the rest is waking up.
//
//   idle_ticker OUT INTERVAL_MS CMD [ARGS...]    exits with CMD's status
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 4 || atoi(argv[2]) <= 0) {
    fprintf(stderr, "usage: idle_ticker OUT INTERVAL_MS CMD [ARGS...]\n");
    return 2;
  }
  uint64_t interval = (uint64_t)atoi(argv[2]) * 1000000ull;
  uint64_t cpu_start = now_ns(CLOCK_PROCESS_CPUTIME_ID);
  pid_t child = fork();
  if (child < 0) {
    perror("idle_ticker: fork");
    return 2;
  }
  if (child == 0) {
    execvp(argv[3], argv + 3);
    perror("idle_ticker: exec");
    _exit(127);
  }
  int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
  if (pidfd < 0) {
    perror("idle_ticker: pidfd_open");
    return 2;
  }
  uint64_t ticks = 0, next = now_ns(CLOCK_MONOTONIC);
  for (;;) {
    uint64_t now = now_ns(CLOCK_MONOTONIC);
    int timeout = now >= next ? 0 : (int)((next - now + 999999) / 1000000);
    struct pollfd p = {pidfd, POLLIN, 0};
    if (poll(&p, 1, timeout) > 0) break;
    if (now_ns(CLOCK_MONOTONIC) >= next) {
      ++ticks;  // a tick that reads nothing
      next += interval;
    }
  }
  int status = 0;
  waitpid(child, &status, 0);
  uint64_t cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
  FILE* out = fopen(argv[1], "a");
  if (!out) {
    perror(argv[1]);
    return 2;
  }
  fprintf(out, "{\"kind\":\"tree\",\"samples\":%llu,\"sampler_cpu_s\":%.6f}\n",
          (unsigned long long)ticks, cpu / 1e9);
  fclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
