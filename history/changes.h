/// Where one figure of one operation changed along a series of commits, and
/// by how much: the rule `account history`, its --check and `account bisect`
/// share. Figures that do not vary across a commit's runs (byte and call
/// counts) are compared exactly: every commit whose figure differs from the
/// one before is a change point, so a 1-byte change is found at its commit.
/// Figures that vary (times, sampled peaks) go through E-Divisive
/// (e_divisive.h) over the commits' medians.
#pragma once

#include <vector>

#include "aggregate.h"
#include "compare/change.h"
#include "e_divisive.h"
#include "metric.h"

namespace account {

/// The counted runs of each commit, oldest first.
using CommitSeries = std::vector<std::vector<RunFigures>>;

struct MetricChangePoint {
  size_t index = 0;  ///< the first commit after the change
  Metric metric = Metric::kCpu;
  bool exact = false;  ///< found by comparing exactly (no run varies)
  double p_value = 0;  ///< of E-Divisive's permutation test (0 when exact)
  /// The segment before against the segment after (each: every run of its
  /// commits): medians, the change in percent and its interval.
  MetricChange change;
};

/// Every commit's runs agree on `m`, and some commit has two runs or more.
bool exact_series(const CommitSeries& series, Metric m);

/// A commit's figure: the median of its runs (median_of_runs).
double commit_value(const std::vector<RunFigures>& runs, Metric m);

/// The change points of `m` along `series` (every commit with at least one
/// run; `m` counted in all of them), oldest first.
std::vector<MetricChangePoint> metric_changes(const CommitSeries& series, Metric m,
                                              const EDivisiveOptions& options = {});

}  // namespace account
