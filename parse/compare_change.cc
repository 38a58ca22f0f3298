#include "compare_change.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "comma_list.h"

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

std::optional<std::vector<Gate>> parse_gates(const std::string& spec, std::string* error) {
  std::vector<Gate> gates;
  for (std::string_view view : comma_list(spec)) {
    std::string item(view);
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      *error = fmt::format("--fail-on '{}': '{}' is not METRIC=PERCENT (e.g. cpu=5%)", spec, item);
      return std::nullopt;
    }
    std::string name = item.substr(0, eq), number = item.substr(eq + 1);
    std::optional<Metric> m = parse_metric(name);
    if (!m) {
      *error = fmt::format("--fail-on '{}': {}", spec, unknown_metric(name));
      return std::nullopt;
    }
    if (!number.empty() && number.back() == '%') number.pop_back();
    char* end = nullptr;
    errno = 0;
    double v = number.empty() ? NAN : std::strtod(number.c_str(), &end);
    if (number.empty() || *end || errno || !std::isfinite(v) || v < 0) {
      *error = fmt::format("--fail-on '{}': '{}' is not a percentage of 0 or more for {}", spec,
                           item.substr(eq + 1), name);
      return std::nullopt;
    }
    gates.push_back({*m, v});
  }
  return gates;
}

bool fails(const MetricChange& c, const Gate& gate) {
  if (c.metric != gate.metric || c.estimate.verdict != Verdict::kWorse) return false;
  // From 0 to anything is beyond any threshold.
  return !c.change_pct || *c.change_pct > gate.threshold_pct;
}

}  // namespace account
