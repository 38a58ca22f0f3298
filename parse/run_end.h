/// How a run ended, and whether it failed: the one rule every report, table and
/// compare uses (docs/report.md, "How runs ended").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "record.h"

namespace account {

/// What a failed run is, in the words every output uses.
inline constexpr char kFailedRunsAre[] =
    "exit status not 0, a signal other than its stop signal, --timeout, interrupted";

struct RunEnd {
  enum class How { kUnknown, kExit, kSignal, kStopped, kKilled, kAborted, kInterrupted };
  How how = How::kUnknown;
  int64_t code = 0;  ///< the exit code, or the signal number

  /// Exited non-zero, died of a signal that is not its stop signal, killed,
  /// aborted (--timeout) or interrupted. Not failed: exit 0, stopped, unknown.
  bool failed() const;
  /// "exit 0", "exit 128", "signal 9", "stopped (SIGTERM)", "killed",
  /// "aborted (timeout)", "interrupted (signal 2)", "unknown".
  std::string text() const;
};

/// A run of `account run` or `account watch --tree`: its tree record decides.
/// An interrupted run or an aborted one is that, whatever its command's status
/// then was; a command ended by one of the record's stop_signals, or that
/// exited 128+N for one of them N (a wrapper whose child it stopped), is stopped.
RunEnd end_of_tree(const TreeRecord& tree);

/// One process image: `exit` with its code, `signal`, `killed`; kUnknown for
/// `exec` (the image lives on) and `running` (account watch stopped first).
/// A run without a tree record ends as its root process (the earliest-starting
/// one) ends: the last image of that pid.
RunEnd end_of_process(const ProcessRecord& process);

/// The Exit column of an operation's runs: the distinct ends in order of first
/// appearance ("exit 0"; "2× exit 128, exit 1"), after "F of N failed: " when
/// some failed (then only the failed ends are listed).
std::string ends_summary(const std::vector<RunEnd>& ends);

}  // namespace account
