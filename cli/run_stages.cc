#include "run_stages.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <climits>

namespace account {

namespace {

int stages_fd() {
  static const int fd = [] {
    const char* value = getenv("ACCOUNT_RUN_STAGES_FD");
    if (!value || !*value) return -1;
    char* end;
    long n = strtol(value, &end, 10);
    if (*end || n < 3 || n > INT_MAX || fcntl(int(n), F_GETFD) < 0) {
      fprintf(stderr,
              "account: ACCOUNT_RUN_STAGES_FD=%s is not a descriptor above 2 open in account: "
              "no stage times\n",
              value);
      return -1;
    }
    return int(n);
  }();
  return fd;
}

// The first constructor of account's own: the loader is done, the static
// initializers (the C++ library's, Boost's, protobuf's) are next.
__attribute__((constructor(101))) void loaded() {
  run_stage("loaded");
}

}  // namespace

void run_stage(const char* name) {
  if (stages_fd() < 0) return;
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  run_stage_at(name, uint64_t(t.tv_sec) * 1000000000 + uint64_t(t.tv_nsec));
}

void run_stage_at(const char* name, uint64_t monotonic_ns) {
  int fd = stages_fd();
  if (fd < 0) return;
  char line[128];
  int n = snprintf(line, sizeof line, "stage %llu.%09llu %s\n",
                   static_cast<unsigned long long>(monotonic_ns / 1000000000),
                   static_cast<unsigned long long>(monotonic_ns % 1000000000), name);
  if (n > 0 && n < int(sizeof line) && write(fd, line, size_t(n)) != n) {
  }
}

}  // namespace account
