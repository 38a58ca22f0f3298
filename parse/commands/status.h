/// The exit statuses of report, compare and export, and their order.
#pragma once

#include "compare/gate.h"
#include "sinks.h"

namespace account {

/// Exit statuses of report and compare. When several apply the first in this
/// order wins: 1 (bad usage, unreadable input) > 3 (compare --fail-on: a
/// regression over its limit) > 5 (--fail-on: a gated figure could not be
/// judged) > 2 (some lines skipped) > 4 (failed runs were seen) > 0.
constexpr int kStatusLinesSkipped = 2;
constexpr int kStatusGateFailed = 3;
constexpr int kStatusFailedRuns = 4;
constexpr int kStatusNotJudged = 5;

/// What compare's gate (--fail-on) came to.
enum class GateStatus {
  kPassed,     ///< no gate, or every gated figure judged and none failed
  kNotJudged,  ///< none failed, and some could not be judged (without --allow-unjudged)
  kFailed      ///< a regression over its limit
};

/// The status of a report or compare whose reading came to `read_status`.
int final_status(int read_status, bool failed_runs_seen, GateStatus gate = GateStatus::kPassed);

/// What a gate's verdict comes to, said to `err`: one line per failure, per
/// figure within the family's noise and per reason something was not judged,
/// then, when something was not judged (or nothing was), one line with the
/// count and the exit status it leads to. `command` names the command
/// ("compare", "history"), so both gates say the same words.
GateStatus settle_gate(const GateVerdict& verdict, const char* command, bool allow_unjudged,
                       const MessageSink& err);

}  // namespace account
