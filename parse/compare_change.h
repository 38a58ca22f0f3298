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

/// A metric's limit for --fail-on: a significant regression (verdict "worse")
/// whose change of the medians is above `threshold_pct` fails the gate.
struct Gate {
  Metric metric = Metric::kCpu;
  double threshold_pct = 0;
};

/// Parses "cpu=5%,resident=2%,malloc=0.5%" (the % is optional). On failure
/// returns nullopt and puts one line naming the bad item (and, for an unknown
/// metric, the known ones) in *error.
std::optional<std::vector<Gate>> parse_gates(const std::string& spec, std::string* error);

/// Whether `c` fails `gate`.
bool fails(const MetricChange& c, const Gate& gate);

}  // namespace account
