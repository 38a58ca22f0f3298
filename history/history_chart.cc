#include "history_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "figures.h"
#include "formats/chart_geometry.h"
#include "formats/html_page.h"

namespace account {
namespace {

constexpr double kWidth = 760, kPanel = 230, kLeft = 70, kRight = 20, kTop = 34, kBottom = 44;

std::string panel(const OperationSeries& s, const SeriesChanges& c, double y0) {
  MetricInfo info = info_of(c.metric);
  std::string heading = info.heading;
  std::vector<std::vector<double>> values(s.runs.size());
  double lo = 0, hi = 0;
  bool first = true;
  for (size_t i = 0; i < s.runs.size(); ++i)
    for (const RunFigures& r : s.runs[i]) {
      double v = metric_of(r, c.metric);
      values[i].push_back(v);
      lo = first ? v : std::min(lo, v);
      hi = first ? v : std::max(hi, v);
      first = false;
    }
  // A change of a few bytes in MiB would need more decimals than an axis has
  // (every tick read "1"): such a panel is drawn in bytes.
  double scale = 1;
  constexpr double kMiB = 1024.0 * 1024.0;
  if (figure(c.metric).unit == Unit::kBytes && (hi - lo) * kMiB < 10240) {
    scale = kMiB;
    if (size_t at = heading.find("(MiB)"); at != std::string::npos)
      heading.replace(at, 5, "(bytes)");
    for (std::vector<double>& commit : values)
      for (double& v : commit) v = std::round(v * kMiB);
    lo = std::round(lo * kMiB);
    hi = std::round(hi * kMiB);
  }
  if (hi == lo) {  // a flat figure: a band around it
    lo -= std::max(1e-9, std::abs(lo) * 0.01);
    hi += std::max(1e-9, std::abs(hi) * 0.01);
  }
  std::vector<double> ticks = nice_ticks(lo, hi, 5);
  if (scale != 1 && hi - lo < 4) {  // whole bytes, one either side
    ticks.clear();
    for (double t = lo - 1; t <= hi + 1; ++t) ticks.push_back(t);
  }
  double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
  int decimals = 0;
  while (decimals < kMaxTickDecimals &&
         std::abs(step * std::pow(10, decimals) - std::round(step * std::pow(10, decimals))) > 1e-6)
    ++decimals;
  double n = double(s.runs.size());
  LinearScale x{-0.5, n - 0.5, kLeft, kWidth - kRight};
  LinearScale y{ticks.front(), ticks.back(), y0 + kPanel - kBottom, y0 + kTop};
  std::string out =
      fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\" font-weight=\"bold\">{} — {}</text>\n",
                  kLeft, y0 + 18, xml_escape(s.test + "/" + s.op), xml_escape(heading));
  for (double t : ticks) {
    out += fmt::format(
        "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e3e3\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"end\">{:.{}f}</text>\n",
        kLeft, kWidth - kRight, y(t), y(t), kLeft - 6, y(t) + 3, t, decimals);
  }
  size_t every = std::max<size_t>(1, (s.commits.size() + 11) / 12);
  for (size_t i = 0; i < s.commits.size(); i += every)
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"9\" text-anchor=\"middle\" "
        "font-family=\"monospace\">{}</text>\n",
        x(double(i)), y0 + kPanel - kBottom + 14, s.commits[i].sha.substr(0, 7));
  // Runs as dots, each commit's median joined.
  std::string medians;
  for (size_t i = 0; i < values.size(); ++i) {
    for (double v : values[i])
      out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"#9bb3c9\"/>",
                         x(double(i)), y(v));
    medians +=
        fmt::format("{:.1f},{:.1f} ", x(double(i)), y(commit_value(s.runs[i], c.metric) * scale));
  }
  out += fmt::format(
      "\n<polyline points=\"{}\" fill=\"none\" stroke=\"#888\" stroke-width=\"1\"/>\n", medians);
  // Each segment's median across it; the change points at their commits.
  std::vector<size_t> bounds = {0};
  for (const MetricChangePoint& p : c.changes) bounds.push_back(p.index);
  bounds.push_back(s.runs.size());
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    std::vector<RunFigures> runs;
    for (size_t i = bounds[k]; i < bounds[k + 1]; ++i)
      runs.insert(runs.end(), s.runs[i].begin(), s.runs[i].end());
    double m = metric_of(median_of_runs(runs), c.metric) * scale;
    out += fmt::format(
        "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#1f77b4\" "
        "stroke-width=\"2.5\"/>\n",
        x(double(bounds[k]) - 0.5), x(double(bounds[k + 1]) - 0.5), y(m), y(m));
  }
  for (const MetricChangePoint& p : c.changes) {
    double at = x(double(p.index) - 0.5);
    out += fmt::format(
        "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#d62728\" "
        "stroke-dasharray=\"4 3\"/><text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" "
        "fill=\"#d62728\" font-family=\"monospace\">{} {}</text>\n",
        at, at, y0 + kTop - 4, y0 + kPanel - kBottom, at + 3, y0 + kTop - 6,
        s.commits[p.index].sha.substr(0, 7),
        p.change.change_pct ? percent_text(*p.change.change_pct, true) : "");
  }
  return out;
}

}  // namespace

std::string history_svg(const History& history, const std::vector<SeriesChanges>& changes) {
  std::string body;
  double y0 = 0;
  for (const SeriesChanges& c : changes) {
    if (!c.counted || c.series->runs.empty()) continue;
    body += panel(*c.series, c, y0);
    y0 += kPanel;
  }
  (void)history;
  return fmt::format(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
             "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, sans-serif\">\n"
             "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
             kWidth, std::max(y0, 40.0)) +
         body + "</svg>\n";
}

std::string history_html(const History& history, const std::vector<SeriesChanges>& changes,
                         const Table& series, const Table& points) {
  auto all = [](const Table& t) {
    std::vector<size_t> rows(t.rows.size());
    std::iota(rows.begin(), rows.end(), 0);
    return rows;
  };
  std::string out = page_head("account history");
  out += "<h2>Change points</h2>\n";
  out += points.rows.empty() ? "<p>No change points.</p>\n" : table_html(points, all(points));
  out += inline_svg(history_svg(history, changes));
  out += "<h2>Figures by commit</h2>\n" + table_html(series, all(series));
  return out + page_tail();
}

}  // namespace account
