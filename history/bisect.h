/// `account bisect`: the first commit between a good and a bad one whose
/// figures are worse than the good one's by more than the --fail-on limits,
/// found by binary search over the first-parent commits between them, each
/// candidate built and measured in a git worktree of its own (the user's
/// checkout is never touched), every run stored, stored runs reused.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "commands/status.h"
#include "compare/gate.h"
#include "sinks.h"
#include "store.h"

namespace account {

struct BisectOptions {
  std::string repo = ".";
  std::string good, bad;
  std::vector<Gate> fail_on;
  std::string build;       ///< a shell command run in the worktree after each checkout ("": none)
  std::string prepare;     ///< a shell command run in the worktree before the build ("": none)
  size_t repeat_max = 10;  ///< runs a commit at most
  std::vector<std::string> command;
  std::string test = "bisect", op = "command";  ///< the labels the runs are stored with
  std::string account;                          ///< the account executable (its `run` measures)
  /// Set (by a signal handler) to stop after the current step; the worktree is removed.
  const std::atomic<bool>* interrupted = nullptr;
};

/// Exit status: 0 found (printed to out), 1 with one line to err (bad
/// usage, a build that failed, an interruption), 5 a verdict that stayed
/// undecided after repeat_max runs.
int run_bisect(Store& store, const BisectOptions& options, const ByteSink& out,
               const MessageSink& err);

}  // namespace account
