#include "changes.h"

namespace account {

bool exact_series(const CommitSeries& series, Metric m) {
  bool repeated = false;
  for (const std::vector<RunFigures>& runs : series) {
    for (const RunFigures& r : runs)
      if (metric_of(r, m) != metric_of(runs.front(), m)) return false;
    repeated = repeated || runs.size() >= 2;
  }
  return repeated;
}

double commit_value(const std::vector<RunFigures>& runs, Metric m) {
  return metric_of(median_of_runs(runs), m);
}

std::vector<MetricChangePoint> metric_changes(const CommitSeries& series, Metric m,
                                              const EDivisiveOptions& options) {
  std::vector<double> values;
  for (const std::vector<RunFigures>& runs : series) values.push_back(commit_value(runs, m));
  bool exact = exact_series(series, m);
  std::vector<ChangePoint> points;
  if (exact) {
    for (size_t i = 1; i < values.size(); ++i)
      if (values[i] != values[i - 1]) points.push_back({i, 0});
  } else {
    std::vector<std::vector<double>> runs(series.size());
    for (size_t i = 0; i < series.size(); ++i)
      for (const RunFigures& r : series[i]) runs[i].push_back(metric_of(r, m));
    points = e_divisive(runs, options);
  }
  std::vector<MetricChangePoint> out;
  for (size_t k = 0; k < points.size(); ++k) {
    size_t from = k == 0 ? 0 : points[k - 1].index;
    size_t to = k + 1 < points.size() ? points[k + 1].index : series.size();
    std::vector<RunFigures> before, after;
    for (size_t i = from; i < points[k].index; ++i)
      before.insert(before.end(), series[i].begin(), series[i].end());
    for (size_t i = points[k].index; i < to; ++i)
      after.insert(after.end(), series[i].begin(), series[i].end());
    out.push_back({points[k].index, m, exact, points[k].p_value, metric_change(before, after, m)});
  }
  return out;
}

}  // namespace account
