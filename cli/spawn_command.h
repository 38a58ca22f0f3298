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
  int error = 0;                   // errno of a failed start (ENOENT, EACCES, ...)
  uint64_t exec_ns = 0;            // CLOCK_REALTIME just before the exec
  uint64_t exec_monotonic_ns = 0;  // the same moment on CLOCK_MONOTONIC
  int join_error = 0;              // errno of a failed write to a join_fds file
};

/// Runs `command` (searched in PATH like execvp) as a vfork child of this
/// process, with the signal mask and dispositions of `signals` and the
/// environment `envp` (nullptr: this process's). With `die_with_parent` the
/// kernel kills it when this process dies (PR_SET_PDEATHSIG). Before its
/// exec the child joins the cgroups whose cgroup.procs files `join_fds` are
/// open on (run_cgroup.h); when it cannot, join_error says why and, with
/// `join_required`, the command is not run (error is that errno too).
Spawned spawn_command(const std::vector<std::string>& command, const ChildSignals& signals,
                      char* const* envp = nullptr, bool die_with_parent = true,
                      const std::vector<int>& join_fds = {}, bool join_required = false);

}  // namespace account
