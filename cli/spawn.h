/// Starting the command of `account run`, timed exactly: its start is read in
/// the child just before its exec, not before the parent's fork or after the
/// exec returned.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "run_signals.h"

namespace account {

struct Spawned {
  pid_t pid = -1;
  int error = 0;         // errno of a failed start (ENOENT, EACCES, ...)
  uint64_t exec_ns = 0;  // CLOCK_REALTIME just before the exec
};

/// Runs `command` (searched in PATH like execvp) as a vfork child of this
/// process, with the signal mask and dispositions of `signals` and the
/// environment `envp` (nullptr: this process's). With `die_with_parent` the
/// kernel kills it when this process dies (PR_SET_PDEATHSIG).
Spawned spawn_command(const std::vector<std::string>& command, const ChildSignals& signals,
                      char* const* envp = nullptr, bool die_with_parent = true);

}  // namespace account
