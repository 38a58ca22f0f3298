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
  int fd = stages_fd();
  if (fd < 0) return;
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  char line[128];
  int n = snprintf(line, sizeof line, "stage %lld.%09ld %s\n", static_cast<long long>(t.tv_sec),
                   t.tv_nsec, name);
  if (n > 0 && n < int(sizeof line) && write(fd, line, size_t(n)) != n) {
  }
}

}  // namespace account
