#include "formats/svg_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace account {

namespace {

constexpr const char* kFont = "font-family=\"system-ui, sans-serif\" font-size=\"11\"";
// Curve colours: the tree first, then the largest processes (Tableau 10).
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                                    "#76b7b2", "#edc948", "#ff9da7", "#9c755f", "#bab0ac"};

std::string num(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  return s;
}

std::string svg_open(int width, int height, const std::string& label,
                     const std::string& more = "") {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" role=\"img\" aria-label=\"{2}\" {3}{4}>\n",
      width, height, xml_escape(label), kFont, more);
}

// What the page's zoom script (html_zoom.cc) needs of a chart with a time
// axis: the plot's left and right edge in SVG units and the seconds they show.
std::string zoom_attribute(const LinearScale& x) {
  return fmt::format(" data-zoom=\"{} {} {} {}\"", num(x.r0), num(x.r1), x.d0, x.d1);
}

// The last tick's label ends at the chart's right edge instead of running past
// it (the zoom script anchors its ticks the same way).
const char* tick_anchor(size_t i, const std::vector<double>& ticks) {
  return ticks.size() > 1 && i + 1 == ticks.size() ? "end" : "middle";
}

std::string mib_text(double bytes) {
  return fmt::format("{:.2f} MiB", bytes / (1024.0 * 1024.0));
}

}  // namespace

const char* end_colour(const std::string& end) {
  if (end == "exit") return "#4e79a7";
  if (end == "exec") return "#76b7b2";
  if (end == "killed") return "#e15759";
  if (end == "signal") return "#f28e2b";
  return "#9c755f";  // running, unknown
}

std::string memory_chart_svg(const MemoryChartData& data, int width, int height) {
  const double left = 64, right = 16, top = 14,
               legend_h = 18.0 * double((data.series.size() + 2) / 3);
  const double bottom = 34 + legend_h;
  double x_max = 0, y_max = 0;
  for (const MemorySeries& s : data.series)
    for (const CurvePoint& p : s.points) x_max = std::max(x_max, p.x), y_max = std::max(y_max, p.y);
  double sampled_max = y_max;
  bool mark_kernel = data.kernel_peak_bytes > sampled_max;
  if (mark_kernel) y_max = data.kernel_peak_bytes;
  if (x_max <= 0) x_max = 1;
  if (y_max <= 0) y_max = 1024 * 1024;
  // Ticks round in MiB, the axis's unit, not in bytes.
  const double mib = 1024.0 * 1024.0;
  std::vector<double> yt = nice_ticks(0, y_max / mib, 5);
  TimeAxis xt = time_axis(0, x_max);
  for (double& t : yt) t *= mib;
  LinearScale x{0, xt.ticks.back(), left, double(width) - right};
  LinearScale y{0, yt.back(), double(height) - bottom, top};
  std::string out = svg_open(width, height, "memory over time", zoom_attribute(x));
  double step_y = yt.size() > 1 ? yt[1] - yt[0] : yt[0];
  for (double t : yt) {
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#e5e5e5\"/>"
        "<text x=\"{3}\" y=\"{4}\" text-anchor=\"end\" fill=\"#555\">{5}</text>\n",
        num(left), num(width - right), num(y(t)), num(left - 6), num(y(t) + 4),
        format_mib_tick(t, step_y));
  }
  out += "<g class=\"x-axis\">\n";
  for (size_t i = 0; i < xt.ticks.size(); ++i)
    out += fmt::format("<text x=\"{0}\" y=\"{1}\" text-anchor=\"{2}\" fill=\"#555\">{3}</text>\n",
                       num(x(xt.ticks[i])), num(height - bottom + 16), tick_anchor(i, xt.ticks),
                       xt.labels[i]);
  out += "</g>\n";
  out += fmt::format(
      "<text x=\"12\" y=\"{0}\" transform=\"rotate(-90 12 {0})\" text-anchor=\"middle\" "
      "fill=\"#333\">MiB</text>\n",
      num((top + height - bottom) / 2));
  out += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#999\"/>\n",
                     num(left), num(width - right), num(height - bottom));
  size_t columns = size_t(std::max(1.0, double(width) - left - right));
  out += "<g class=\"zoom-curves\">\n";
  for (size_t i = 0; i < data.series.size(); ++i) {
    const MemorySeries& s = data.series[i];
    std::vector<CurvePoint> pts = reduce_for_drawing(s.points, columns);
    if (pts.empty()) continue;
    std::string path;
    for (size_t k = 0; k < pts.size(); ++k)
      path += fmt::format("{}{},{}", k ? " L" : "M", num(x(pts[k].x)), num(y(pts[k].y)));
    double peak = 0;
    for (const CurvePoint& p : s.points) peak = std::max(peak, p.y);
    out += fmt::format(
        "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" "
        "stroke-linejoin=\"round\"><title>{}: peak {}</title></path>\n",
        path, kPalette[i % 10], s.emphasis ? 2.2 : 1.3, xml_escape(s.name), mib_text(peak));
  }
  out += "</g>\n";
  if (mark_kernel) {
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#e15759\" "
        "stroke-dasharray=\"5 3\"><title>{3}</title></line>"
        "<text x=\"{1}\" y=\"{4}\" text-anchor=\"end\" fill=\"#e15759\">{3}</text>\n",
        num(left), num(width - right), num(y(data.kernel_peak_bytes)),
        xml_escape(data.kernel_peak_label + ": " + mib_text(data.kernel_peak_bytes)),
        num(y(data.kernel_peak_bytes) - 4));
  }
  // Legend, three entries a line.
  double ly = height - legend_h + 4;
  double col_w = (double(width) - left - right) / 3;
  for (size_t i = 0; i < data.series.size(); ++i) {
    double lx = left + col_w * double(i % 3);
    double row_y = ly + 18.0 * double(i / 3);
    std::string name = data.series[i].name;
    if (name.size() > 48) name = name.substr(0, 47) + "…";
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"4\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\" fill=\"#333\">{}</text>\n",
        num(lx), num(row_y - 4), kPalette[i % 10], num(lx + 20), num(row_y), xml_escape(name));
  }
  out += "</svg>\n";
  return out;
}

std::string process_timeline_svg(const std::vector<TimelineRow>& rows, double span_s, int width) {
  const double left = 170, right = 16, top = 8, row_h = 18, axis_h = 22, legend_h = 22;
  int height = int(top + row_h * double(rows.size()) + axis_h + legend_h);
  if (span_s <= 0) span_s = 1e-3;
  TimeAxis xt = time_axis(0, span_s);
  LinearScale x{0, xt.ticks.back(), left, double(width) - right};
  std::string out = svg_open(width, height, "process timeline", zoom_attribute(x));
  double axis_y = top + row_h * double(rows.size());
  out += "<g class=\"x-axis\">\n";
  for (size_t i = 0; i < xt.ticks.size(); ++i)
    out += fmt::format(
        "<g><line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#eee\"/>"
        "<text x=\"{0}\" y=\"{3}\" text-anchor=\"{4}\" fill=\"#555\">{5}</text></g>\n",
        num(x(xt.ticks[i])), num(top), num(axis_y), num(axis_y + 14), tick_anchor(i, xt.ticks),
        xt.labels[i]);
  out += "</g>\n";
  // The bars in one group after the row labels: the zoom script moves them.
  std::string bars = "<g class=\"zoom-bars\">\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    double ry = top + row_h * double(r);
    if (rows[r].heading) {
      out += fmt::format(
          "<line x1=\"0\" x2=\"{0}\" y1=\"{1}\" y2=\"{1}\" stroke=\"#999\"/>"
          "<text x=\"0\" y=\"{2}\" fill=\"#222\" font-weight=\"600\">{3}</text>\n",
          num(width - right), num(ry + 1), num(ry + 13), xml_escape(rows[r].label));
      continue;
    }
    std::string label = rows[r].label;
    if (label.size() > 26) label = label.substr(0, 25) + "…";
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#333\">{}</text>\n",
                       num(left - 6), num(ry + 12.5), xml_escape(label));
    for (const TimelineBar& b : rows[r].bars) {
      double x0 = x(b.start_s), x1 = std::max(x(b.end_s), x0 + 1.5);  // a 1 ms process is seen
      bars += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" rx=\"2\">"
          "<title>{}</title></rect>\n",
          num(x0), num(ry + 2), num(x1 - x0), num(row_h - 4), end_colour(b.end),
          xml_escape(b.tooltip));
      // The label inside the bar when about 6.5 px a character fit.
      if (!b.label.empty() && (x1 - x0) > 6.5 * double(b.label.size()) + 8)
        bars +=
            fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#fff\" pointer-events=\"none\">{}</text>\n",
                        num(x0 + 4), num(ry + 12.5), xml_escape(b.label));
    }
  }
  out += bars + "</g>\n";
  // The legend: the endings these bars have, in a fixed order.
  double lx = left;
  for (const char* end : {"exit", "exec", "killed", "signal", "running"}) {
    bool present = std::any_of(rows.begin(), rows.end(), [&](const TimelineRow& r) {
      return std::any_of(r.bars.begin(), r.bars.end(), [&](const TimelineBar& b) {
        return end_colour(b.end) == end_colour(end);
      });
    });
    if (!present) continue;
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"10\" fill=\"{}\" rx=\"2\"/>"
        "<text x=\"{}\" y=\"{}\" fill=\"#333\">{}</text>\n",
        num(lx), num(axis_y + 26), end_colour(end), num(lx + 16), num(axis_y + 35), end);
    lx += 80;
  }
  out += "</svg>\n";
  return out;
}

namespace {

size_t icicle_depth(const IcicleNode& n) {
  size_t d = 0;
  for (const IcicleNode& c : n.children) d = std::max(d, icicle_depth(c));
  return d + 1;
}

void icicle_rows(const IcicleNode& n, double x0, double w, size_t depth, double total,
                 const LinearScale& x, std::string* out) {
  const double row_h = 18;
  double px0 = x(x0), px1 = x(x0 + w);
  if (px1 - px0 < 0.5) return;  // narrower than a pixel: invisible, and so its callees
  double y = 4 + row_h * double(depth);
  std::string hover =
      fmt::format("{}\n{} in {} call{} ({:.1f} % of all)", n.name, mib_text(double(n.bytes)),
                  n.calls, n.calls == 1 ? "" : "s", 100.0 * double(n.bytes) / total);
  // Warm colours by depth, as flame graphs do; the root grey.
  int hue = depth == 0 ? 0 : int(10 + (depth * 37) % 40);
  std::string fill =
      depth == 0 ? "#bab0ac" : fmt::format("hsl({},75%,{}%)", hue, 62 + int(depth % 3) * 4);
  *out += fmt::format(
      "<g><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#fff\" "
      "stroke-width=\"0.5\"/><title>{}</title>",
      num(px0), num(y), num(px1 - px0), num(row_h - 1), fill, xml_escape(hover));
  std::string name = n.name;
  size_t fits = size_t(std::max(0.0, (px1 - px0 - 6) / 6.5));
  if (fits >= 3) {
    if (name.size() > fits) name = name.substr(0, fits - 1) + "…";
    *out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#222\" pointer-events=\"none\">{}</text>",
                        num(px0 + 3), num(y + 12.5), xml_escape(name));
  }
  *out += "</g>\n";
  double at = x0;
  for (const IcicleNode& c : n.children) {
    double cw = n.bytes ? w * double(c.bytes) / double(n.bytes) : 0;
    icicle_rows(c, at, cw, depth + 1, total, x, out);
    at += cw;
  }
}

}  // namespace

std::string icicle_svg(const IcicleNode& root, int width) {
  size_t depth = icicle_depth(root);
  int height = int(8 + 18.0 * double(depth));
  std::string out = svg_open(width, height, "where large allocations come from");
  LinearScale x{0, 1, 2, double(width) - 2};
  icicle_rows(root, 0, 1, 0, root.bytes ? double(root.bytes) : 1, x, &out);
  out += "</svg>\n";
  return out;
}

namespace {

double diff_width(const IcicleDiffNode& n) {
  return std::max(n.before, n.after);
}

size_t diff_depth(const IcicleDiffNode& n) {
  size_t d = 0;
  for (const IcicleDiffNode& c : n.children) d = std::max(d, diff_depth(c));
  return d + 1;
}

// Grew: red, shrank: blue, saturation by the change against the frame's width.
std::string diff_fill(const IcicleDiffNode& n) {
  double w = diff_width(n);
  double change = w > 0 ? (n.after - n.before) / w : 0;
  if (std::fabs(change) < 1e-9) return "#d9d4cf";
  int light = 88 - int(std::min(1.0, std::fabs(change)) * 40);
  return fmt::format("hsl({},80%,{}%)", change > 0 ? 4 : 215, light);
}

void diff_rows(const IcicleDiffNode& n, double x0, double w, size_t depth, const LinearScale& x,
               std::string* out) {
  const double row_h = 18;
  double px0 = x(x0), px1 = x(x0 + w);
  if (px1 - px0 < 0.5) return;
  double y = 4 + row_h * double(depth);
  double change = n.after - n.before;
  std::string hover = fmt::format("{}\n{} -> {} a run ({}{})", n.name, mib_text(n.before),
                                  mib_text(n.after), change > 0 ? "+" : "", mib_text(change));
  *out += fmt::format(
      "<g class=\"diff\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
      "stroke=\"#fff\" stroke-width=\"0.5\"/><title>{}</title>",
      num(px0), num(y), num(px1 - px0), num(row_h - 1), diff_fill(n), xml_escape(hover));
  std::string name = n.name;
  size_t fits = size_t(std::max(0.0, (px1 - px0 - 6) / 6.5));
  if (fits >= 3) {
    if (name.size() > fits) name = name.substr(0, fits - 1) + "…";
    *out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#222\" pointer-events=\"none\">{}</text>",
                        num(px0 + 3), num(y + 12.5), xml_escape(name));
  }
  *out += "</g>\n";
  // Children's larger figures can sum above the frame's (one grew as another
  // shrank): they then share its width in proportion.
  double total = diff_width(n), sum = 0, at = x0;
  for (const IcicleDiffNode& c : n.children) sum += diff_width(c);
  total = std::max(total, sum);
  for (const IcicleDiffNode& c : n.children) {
    double cw = total > 0 ? w * diff_width(c) / total : 0;
    diff_rows(c, at, cw, depth + 1, x, out);
    at += cw;
  }
}

}  // namespace

std::string icicle_diff_svg(const IcicleDiffNode& root, int width) {
  int height = int(8 + 18.0 * double(diff_depth(root)));
  std::string out = svg_open(width, height, "allocations by call stack: what grew and shrank");
  LinearScale x{0, 1, 2, double(width) - 2};
  diff_rows(root, 0, 1, 0, x, &out);
  out += "</svg>\n";
  return out;
}

std::string compare_bars_svg(const std::vector<CompareFigure>& figures, int width) {
  const double label_w = 150, text_w = 170, bar_h = 14, gap = 10, title_h = 16;
  double height = 4;
  for (const CompareFigure& f : figures) height += title_h + bar_h * double(f.builds.size()) + gap;
  std::string out = svg_open(width, int(height), "figures of each build");
  double y = 4;
  for (const CompareFigure& f : figures) {
    out += fmt::format("<text x=\"0\" y=\"{}\" fill=\"#333\" font-weight=\"600\">{}</text>\n",
                       num(y + 11), xml_escape(f.title));
    y += title_h;
    double max = 0;
    for (const CompareFigure::Build& b : f.builds)
      if (b.has_value) max = std::max(max, b.value);
    LinearScale x{0, max > 0 ? max : 1, label_w, double(width) - text_w};
    for (size_t i = 0; i < f.builds.size(); ++i) {
      const CompareFigure::Build& b = f.builds[i];
      std::string shown = b.text + (b.change.empty() ? "" : "  (" + b.change + ")");
      out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#333\">{}</text>",
                         num(label_w - 6), num(y + 10.5), xml_escape(b.name));
      double w = b.has_value ? std::max(x(b.value) - label_w, 1.0) : 0;
      if (b.has_value)
        out += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{}: "
            "{}</title></rect>",
            num(label_w), num(y + 1), num(w), num(bar_h - 3), kPalette[i % 10], xml_escape(b.name),
            xml_escape(shown));
      out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#333\">{}</text>\n", num(label_w + w + 6),
                         num(y + 10.5), xml_escape(b.has_value ? shown : "no successful run"));
      y += bar_h;
    }
    y += gap;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace account
