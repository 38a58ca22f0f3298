#include "compare_change.h"

#include <fmt/format.h>

#include <cmath>

namespace account {

namespace {

std::optional<double> percent_of(double delta, double base) {
  if (base == 0) return delta == 0 ? std::optional<double>(0.0) : std::nullopt;
  return delta / std::abs(base) * 100.0;
}

}  // namespace

MetricChange metric_change(const std::vector<RunFigures>& a, const std::vector<RunFigures>& b,
                           Metric m) {
  MetricChange c;
  c.metric = m;
  c.base = metric_of(median_of_runs(a), m);
  c.value = metric_of(median_of_runs(b), m);
  c.change_pct = percent_of(c.value - c.base, c.base);
  std::vector<double> va, vb;
  for (const RunFigures& r : a) va.push_back(metric_of(r, m));
  for (const RunFigures& r : b) vb.push_back(metric_of(r, m));
  c.estimate = estimate_change(va, vb, kCompareConfidence);
  if (c.estimate.verdict != Verdict::kTooFewRuns && c.base != 0) {
    c.low_pct = percent_of(c.estimate.low, c.base);
    c.high_pct = percent_of(c.estimate.high, c.base);
  }
  return c;
}

}  // namespace account
