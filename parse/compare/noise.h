/// Is a change between two sets of runs more than noise? The Hodges–Lehmann
/// estimate of the shift from A to B with its distribution-free confidence
/// interval (the one the Mann–Whitney U test inverts), and the two-sided
/// Mann–Whitney p-value. docs/report.md says why this method.
#pragma once

#include <string>
#include <vector>

namespace account {

enum class Verdict {
  kWorse,      ///< B is larger, beyond noise (every figure in the table: larger is worse)
  kBetter,     ///< B is smaller, beyond noise
  kNoise,      ///< the interval contains no change: "~"
  kSame,       ///< compared exactly and equal in every run: "same"
  kTooFewRuns  ///< not enough runs on a side for the confidence asked
};

/// "worse", "better", "~", "same", "too few runs".
const char* verdict_name(Verdict v);

struct ChangeEstimate {
  Verdict verdict = Verdict::kTooFewRuns;
  /// "exact" when neither side varies (every run of A equal, every run of B
  /// equal): the change is the difference itself. "hodges-lehmann" otherwise.
  std::string method;
  double shift = 0;          ///< estimated B - A, in the metric's unit
  double low = 0, high = 0;  ///< its confidence interval (equal to shift when exact)
  double p_value = 1;        ///< two-sided Mann–Whitney (1 when exact or too few runs)
  /// One-sided: the chance of B this much larger or more were there no change
  /// (Mann–Whitney; when exact, 0 for a larger B, else 1; 1 with too few runs).
  /// What the gate judges a regression by.
  double p_worse = 1;
  double confidence = 0.95;      ///< what was asked
  size_t min_runs_per_side = 0;  ///< what the method needs at this confidence (A = B sizes)
};

/// The change from `a` to `b` (each: one value per run). With fewer runs than
/// the method needs for `confidence` (both sides of 4 runs at 95 %), the verdict
/// is kTooFewRuns; a side that does not vary, with at least 2 runs on each
/// side, is compared exactly: any difference present in every run is a change.
ChangeEstimate estimate_change(const std::vector<double>& a, const std::vector<double>& b,
                               double confidence = 0.95);

/// Which alternative a p-value is about.
enum class Tail {
  kTwoSided,  ///< A and B differ
  kBLarger    ///< B is larger than A
};

/// Mann–Whitney U test p-value for samples a and b (mid-ranks for ties):
/// exact null distribution when there are no ties and the samples are small,
/// otherwise the normal approximation with tie and continuity correction.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b,
                      Tail tail = Tail::kTwoSided);

/// k for a two-sided interval at `confidence` from the n*m sorted differences
/// b - a: the interval is [the k-th smallest, the k-th largest] (1-based), k the
/// largest with P(U < k) <= (1 - confidence) / 2 under the null. 0 when no
/// interval with that confidence exists for these sizes.
size_t hodges_lehmann_cut(size_t n, size_t m, double confidence);

}  // namespace account
