/// The exit statuses of report, compare and export, and their order.
#pragma once

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

}  // namespace account
