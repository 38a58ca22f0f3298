#include "compare/gate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "cell_text.h"
#include "comma_list.h"
#include "compare/holm.h"
#include "compare/normal.h"

namespace account {

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

namespace {

// "+21.9% (95% interval +18.5% to +24.9%)" or "+0.00001% (exact: in every run)".
std::string change_text(const MetricChange& c) {
  std::string change = c.change_pct ? percent_text(*c.change_pct, true) : "from 0";
  if (c.estimate.method == "exact") return change + " (exact: in every run)";
  return fmt::format("{} ({:.0f}% interval {})", change, kCompareConfidence * 100,
                     c.low_pct && c.high_pct
                         ? percent_text(*c.low_pct) + " to " + percent_text(*c.high_pct)
                         : std::string("N/A"));
}

bool over_limit(const MetricChange& c, const Gate& g) {
  return !c.change_pct || *c.change_pct > g.threshold_pct;  // from 0: over any limit
}

// C(a + b, a): the arrangements of a runs of A and b of B; 1 over it is the
// smallest one-sided Mann–Whitney p-value they can give.
double arrangements(size_t a, size_t b) {
  double c = 1;
  for (size_t k = 1; k <= a; ++k) c = c * double(b + k) / double(k);
  return c;
}

}  // namespace

size_t runs_needed(size_t figures) {
  size_t n = estimate_change({}, {}, kCompareConfidence).min_runs_per_side;
  while (arrangements(n, n) * kGateFamilyError < double(std::max<size_t>(figures, 1))) ++n;
  return n;
}

std::optional<size_t> runs_to_catch(const MetricChange& c, size_t runs_a, size_t runs_b, double pct,
                                    size_t figures) {
  if (!c.log_scale || !c.low_pct || !c.high_pct || c.estimate.method == "exact" || pct <= 0 ||
      runs_a == 0 || runs_b == 0)
    return std::nullopt;
  double z_interval = normal_quantile(1 - (1 - kCompareConfidence) / 2);
  double se = (std::log1p(*c.high_pct / 100) - std::log1p(*c.low_pct / 100)) / (2 * z_interval);
  double noise = se / std::sqrt(1.0 / double(runs_a) + 1.0 / double(runs_b));
  if (!(noise > 0) || !std::isfinite(noise)) return std::nullopt;
  double z_alarm = normal_quantile(1 - kGateFamilyError / double(std::max<size_t>(figures, 1)));
  double z_power = normal_quantile(0.8);
  double shift = (z_alarm + z_power) * noise / std::log1p(pct / 100);
  double n = std::ceil(2 * shift * shift / (3 / M_PI));
  if (!(n < 1e6)) return std::nullopt;
  return std::max(size_t(n), runs_needed(figures));
}

// "; to catch a 5% change at this noise across 90 gated figures: about 150 runs a side".
std::string catch_text(const std::optional<size_t>& n, double pct, size_t figures) {
  if (!n) return "";
  return fmt::format(
      "; to catch a {:g}% change at this noise across {} gated figure{}: about {} "
      "runs a side",
      pct, figures, figures == 1 ? "" : "s", *n);
}

GateVerdict judge_gates(const std::vector<GatedFigure>& input, bool name_pairs,
                        const char* command) {
  GateVerdict v;
  // The family: every figure with runs on both sides. A figure whose runs
  // cannot reach its level is not judged, and says how many runs it needs.
  size_t family = size_t(std::count_if(input.begin(), input.end(), [](const GatedFigure& f) {
    return f.runs_a > 0 && f.runs_b > 0;
  }));
  size_t need = runs_needed(family);
  std::vector<GatedFigure> figures = input;
  for (GatedFigure& f : figures) {
    if (f.runs_a == 0 || f.runs_b == 0) continue;
    bool exact = f.change && f.change->estimate.method == "exact";
    bool reachable = arrangements(f.runs_a, f.runs_b) * kGateFamilyError >= double(family);
    if (f.change && (exact || reachable)) continue;
    std::optional<size_t> to_catch =
        f.change ? runs_to_catch(*f.change, f.runs_a, f.runs_b, f.gate.threshold_pct, family)
                 : std::nullopt;
    f.change.reset();
    f.why = fmt::format("{} and {} runs, {} a side needed", f.runs_a, f.runs_b, need);
    if (need > runs_needed(1)) f.why += fmt::format(" across {} gated figures", family);
    f.fix = fmt::format("--repeat {}{}", need, catch_text(to_catch, f.gate.threshold_pct, family));
  }
  std::vector<const GatedFigure*> judged;
  std::vector<double> p;
  for (const GatedFigure& f : figures) {
    if (!f.change) continue;
    judged.push_back(&f);
    p.push_back(f.change->estimate.p_worse);
  }
  v.judged = judged.size();
  std::vector<double> adjusted = holm_adjusted(p);
  for (size_t i = 0; i < judged.size(); ++i) {
    const GatedFigure& f = *judged[i];
    const MetricChange& c = *f.change;
    if (c.estimate.verdict != Verdict::kWorse || !over_limit(c, f.gate)) continue;
    std::string where =
        fmt::format("{}: {}: {} {}", f.what, f.pair, metric_name(f.gate.metric), change_text(c));
    std::string limit = fmt::format("the {:g}% limit", f.gate.threshold_pct);
    std::string odds =
        c.estimate.method == "exact"
            ? std::string()
            : fmt::format("; p={:.2g} one-sided, {:.2g} after Holm over {} gated figure{}",
                          c.estimate.p_worse, adjusted[i], v.judged, v.judged == 1 ? "" : "s");
    if (adjusted[i] <= kGateFamilyError)
      v.failures.push_back(
          fmt::format("account: {}: regression: {}, over {}{}", command, where, limit, odds));
    else
      v.within_family_noise.push_back(fmt::format(
          "account: {}: --fail-on: {}, over {} but within the noise of {} gated "
          "figures{}: passed{}",
          command, where, limit, v.judged, odds,
          catch_text(runs_to_catch(c, f.runs_a, f.runs_b, f.gate.threshold_pct, v.judged),
                     f.gate.threshold_pct, v.judged)));
  }
  // Unjudged: one line per (what, pair, why, fix), its metrics together.
  struct Group {
    const GatedFigure* first;
    std::vector<std::string> metrics;
  };
  std::vector<Group> groups;
  for (const GatedFigure& f : figures) {
    if (f.change) continue;
    ++v.not_judged;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.first->what == f.what && g.first->pair == f.pair && g.first->why == f.why &&
             g.first->fix == f.fix;
    });
    if (g == groups.end()) g = groups.insert(groups.end(), Group{&f, {}});
    std::string name = metric_name(f.gate.metric);
    if (std::find(g->metrics.begin(), g->metrics.end(), name) == g->metrics.end())
      g->metrics.push_back(name);
  }
  for (const Group& g : groups) {
    const GatedFigure& f = *g.first;
    std::string pair = name_pairs && !f.pair.empty() ? " (" + f.pair + ")" : "";
    v.unjudged.push_back(fmt::format("account: {}: --fail-on: {}: {}{} not judged: {}: {}", command,
                                     fmt::join(g.metrics, ", "), f.what, pair, f.why, f.fix));
  }
  return v;
}

}  // namespace account
