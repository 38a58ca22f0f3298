// Starting the command of `account run`, timed exactly: its start is read in
// the child just before its exec, not before the parent's fork or after the
// exec returned.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace account {

struct Spawned {
  pid_t pid = -1;
  int error = 0;         // errno of a failed start (ENOENT, EACCES, ...)
  uint64_t exec_ns = 0;  // CLOCK_REALTIME just before the exec
};

// Runs `command` (searched in PATH like execvp) with SIGINT and SIGQUIT at
// their defaults, as a vfork child of this process.
Spawned spawn_command(const std::vector<std::string>& command);

}  // namespace account
