#include "compare/change.h"

#include <fmt/format.h>

#include <algorithm>
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
  auto positive = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  };
  c.log_scale = positive(va) && positive(vb);
  if (c.log_scale) {
    // A ratio's interval: on the log scale a change is a shift, and the
    // interval turned back cannot reach -100 %.
    auto logs = [](std::vector<double> v) {
      for (double& x : v) x = std::log(x);
      return v;
    };
    c.estimate = estimate_change(logs(va), logs(vb), kCompareConfidence);
    if (c.estimate.verdict != Verdict::kTooFewRuns) {
      c.low_pct = std::expm1(c.estimate.low) * 100;
      c.high_pct = std::expm1(c.estimate.high) * 100;
    }
    return c;
  }
  // A 0 among the runs: the shift of the figures themselves. A figure is never
  // below 0, so no shift takes B's median below -100 % of A's.
  c.estimate = estimate_change(va, vb, kCompareConfidence);
  if (c.estimate.verdict != Verdict::kTooFewRuns && c.base != 0) {
    c.low_pct = std::max(-100.0, *percent_of(c.estimate.low, c.base));
    c.high_pct = std::max(-100.0, *percent_of(c.estimate.high, c.base));
  }
  return c;
}

}  // namespace account
