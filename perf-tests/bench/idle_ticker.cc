// The floor of any sampler that wakes every INTERVAL ms (and up to 5 ms
// later, as Ticker::wait allows): runs CMD as its
// child and waits for it the way account run does (the same Ticker's wait on
// CMD's pidfd), but its tick reads nothing. It then
// appends its own CPU, from before the spawn to CMD's end, as a tree record
// with the keys account run's tree record uses for its sampler (record_keys.h:
// "samples", "sampler_cpu_s"). overhead.sh runs it as "idle ticker" beside
// account run: what account run's sampler spends above it is the tick's work;
// the rest is waking up.
//
//   idle_ticker OUT INTERVAL_MS CMD [ARGS...]    exits with CMD's status
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "record_keys.h"
#include "sampling.h"

int main(int argc, char** argv) {
  if (argc < 4 || std::atoi(argv[2]) <= 0 || std::atoi(argv[2]) > 1000) {
    std::fprintf(stderr, "usage: idle_ticker OUT INTERVAL_MS(1-1000) CMD [ARGS...]\n");
    return 2;
  }
  uint64_t cpu_at_start = account::process_cpu_now_ns();
  pid_t child = fork();
  if (child < 0) {
    std::perror("idle_ticker: fork");
    return 2;
  }
  if (child == 0) {
    execvp(argv[3], argv + 3);
    std::perror("idle_ticker: exec");
    _exit(127);
  }
  int pidfd = int(syscall(SYS_pidfd_open, child, 0));
  if (pidfd < 0) {
    std::perror("idle_ticker: pidfd_open");
    return 2;
  }
  account::Ticker ticker(uint32_t(std::atoi(argv[2])));
  uint64_t ticks = 0;
  for (;;) {
    pollfd p{pidfd, POLLIN, 0};
    if (ticker.wait(&p, 1) > 0) break;
    if (ticker.due()) ++ticks;  // a tick that reads nothing
  }
  int status = 0;
  waitpid(child, &status, 0);
  uint64_t cpu_ns = account::process_cpu_now_ns() - cpu_at_start;
  FILE* out = std::fopen(argv[1], "a");
  if (!out) {
    std::perror(argv[1]);
    return 2;
  }
  namespace keys = account::keys;
  std::fprintf(out, "{\"%s\":\"tree\",\"%s\":%llu,\"%s\":%.6f}\n", keys::kKind, keys::kSamples,
               static_cast<unsigned long long>(ticks), keys::kSamplerCpu, double(cpu_ns) / 1e9);
  std::fclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
