/// What `account compare` says about one figure of one operation between two
/// builds: the change of the medians in percent (the figure the table prints)
/// and noise.h's estimate of the shift with its confidence interval, in
/// percent of the first build's median. The table, the gate (--fail-on) and
/// every output format read this one computation.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aggregate.h"
#include "metric.h"
#include "noise.h"

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
  ChangeEstimate estimate;
  /// The estimate's interval in percent of base (nullopt where base is 0 or
  /// there is no verdict).
  std::optional<double> low_pct, high_pct;
};

/// The change of `m` from runs `a` to runs `b` (both the counted runs, each
/// side at least one run).
MetricChange metric_change(const std::vector<RunFigures>& a, const std::vector<RunFigures>& b,
                           Metric m);

}  // namespace account
