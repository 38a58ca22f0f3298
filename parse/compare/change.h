/// What `account compare` says about one figure of one operation between two
/// builds: the change of the medians in percent (the figure the table prints)
/// and noise.h's estimate of the change with its confidence interval, in
/// percent. Both are on a scale where nothing shrinks by more than 100 %: the
/// ratio of the medians, and the interval of the log ratio turned back into
/// percent. The table, the gate (--fail-on) and every output format read
/// this one computation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aggregate.h"
#include "compare/noise.h"
#include "metric.h"

namespace account {

/// The confidence of every interval compare prints (docs/report.md).
constexpr double kCompareConfidence = 0.95;

struct MetricChange {
  Metric metric = Metric::kCpu;
  double base = 0;   ///< median of the first build's counted runs
  double value = 0;  ///< median of the other build's counted runs
  /// (value - base) / base in percent; nullopt where base is 0 and value is not
  /// (0 where both are 0).
  std::optional<double> change_pct;
  /// On the logarithms of the figures where every run's is above 0 (shift,
  /// low, high: log ratios), else on the figures themselves.
  ChangeEstimate estimate;
  bool log_scale = false;
  /// The estimate's interval in percent: exp(bound) - 1 on the log scale; on
  /// the figures' own scale in percent of base, and never below -100 %, as no
  /// figure goes below 0 (nullopt where base is 0 or there is no verdict).
  std::optional<double> low_pct, high_pct;
};

/// The change of `m` from runs `a` to runs `b` (both the counted runs, each
/// side at least one run).
MetricChange metric_change(const std::vector<RunFigures>& a, const std::vector<RunFigures>& b,
                           Metric m);

}  // namespace account
