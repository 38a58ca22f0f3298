/// The gate of `account compare --fail-on`: which gated figures it could
/// judge, which of those fail, and why the others could not be judged. It
/// fails closed: a figure it could not judge is never a pass unless the user
/// says so (--allow-unjudged). The false alarms of all judged figures together
/// are held at 5 % by Holm's rule (holm.h; docs/gate.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compare/change.h"
#include "metric.h"

namespace account {

/// A metric's limit for --fail-on: a significant regression whose change of
/// the medians is above `threshold_pct` fails the gate.
struct Gate {
  Metric metric = Metric::kCpu;
  double threshold_pct = 0;
};

/// Parses "cpu=5%,resident=2%,malloc=0.5%" (the % is optional). On failure
/// returns nullopt and puts one line naming the bad item (and, for an unknown
/// metric, the known ones) in *error.
std::optional<std::vector<Gate>> parse_gates(const std::string& spec, std::string* error);

/// One gate applied to one operation (or to a whole input that could not be
/// read for it) between the first input and a later one.
struct GatedFigure {
  Gate gate;
  std::string what;  ///< "test/op", or an input's name when the whole input is unjudged
  std::string pair;  ///< "b vs a"
  size_t later = 0;  ///< the later input's index (the first input is 0)
  /// Counted runs of each side; 0 where a side has none (then why and fix say so).
  size_t runs_a = 0, runs_b = 0;
  /// The change, where there are runs enough for a 95 % verdict on this figure.
  std::optional<MetricChange> change;
  std::string why, fix;  ///< not judged for another reason than runs: why, and what to do
};

/// Runs a side that let Mann–Whitney find a change significant across
/// `figures` gated figures at family-wise level kGateFamilyError: the least n
/// with 1 / C(2n, n) (the smallest one-sided p-value of n runs against n) at
/// most kGateFamilyError / figures, and never fewer than a 95 % interval
/// needs (4): 4 for up to 3 figures, 5 up to 12, 6 up to 46, 7 up to 171.
size_t runs_needed(size_t figures);

/// About how many runs a side would catch a change of `pct` percent in 80 %
/// of comparisons across `figures` gated figures, at the noise the change's
/// interval shows (its runs_a and runs_b runs): the normal approximation
/// n = 2 ((z(1 - 0.05/figures) + z(0.8)) s / ln(1 + pct/100))^2 over
/// Mann–Whitney's efficiency 3/pi, s the per-run noise on the log scale,
/// never below runs_needed(figures). nullopt where the interval tells no
/// noise (exact, not on the log scale, none).
std::optional<size_t> runs_to_catch(const MetricChange& c, size_t runs_a, size_t runs_b, double pct,
                                    size_t figures);

/// The chance of a false alarm in a whole comparison (every judged figure
/// together): one minus the confidence of the intervals compare prints.
constexpr double kGateFamilyError = 1 - kCompareConfidence;

struct GateVerdict {
  std::vector<std::string> failures;  ///< one line per regression over its limit
  /// One line per figure beyond noise and over its limit alone, but not once
  /// every judged figure is taken into account: it passes.
  std::vector<std::string> within_family_noise;
  std::vector<std::string> unjudged;  ///< one line per reason, its metrics together
  size_t judged = 0, not_judged = 0;  ///< figures
};

/// Judges `figures`. A figure with runs on both sides is judged when its runs
/// could show a change significant across all such figures (runs_needed; an
/// "exact" change, in every run, always can); otherwise it is not judged, with
/// the runs it needs. A judged figure fails when its change is flagged worse
/// (the table's *), over its threshold, and its one-sided Mann–Whitney p-value
/// stays at most kGateFamilyError after Holm's adjustment over every judged
/// figure. `name_pairs`: name the pair ("c vs a") in the unjudged lines (more
/// than two inputs). `command` names the command in the lines ("compare",
/// "history").
GateVerdict judge_gates(const std::vector<GatedFigure>& figures, bool name_pairs,
                        const char* command = "compare");

}  // namespace account
