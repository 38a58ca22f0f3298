#include "html_report.h"

#include <fmt/format.h>

#include "chart_data.h"
#include "reader.h"
#include "render.h"
#include "svg_charts.h"

namespace account {

namespace {

constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 920px; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
h3 { font-size: 1em; margin: 1.2em 0 0.3em; color: #444; }
p.meta, p.note { color: #666; font-size: 0.9em; }
p.note { background: #f6f6f6; border-left: 3px solid #bbb; padding: 0.4em 0.7em; }
table { border-collapse: collapse; font-size: 0.85em; font-variant-numeric: tabular-nums; }
th, td { padding: 0.15em 0.6em; border-bottom: 1px solid #eee; white-space: nowrap; }
th { text-align: left; font-weight: 600; border-bottom: 1px solid #999; }
td.num, th.num { text-align: right; }
tr.group-start td { border-top: 1px solid #bbb; }
svg.chart { max-width: 100%; height: auto; display: block; }
a { color: #2a5d9f; }
)css";

std::string escape(const std::string& s) {
  return xml_escape(s);
}

std::string table_html(const Table& t, const std::vector<size_t>& rows) {
  std::vector<size_t> cols = visible_columns(t);
  std::string out = "<table>\n<tr>";
  for (size_t c : cols)
    out += fmt::format("<th class=\"{}\">{}</th>", t.columns[c].align == Align::kRight ? "num" : "",
                       escape(t.columns[c].markdown));
  out += "</tr>\n";
  std::string group;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = t.rows[rows[i]];
    bool starts = i > 0 && r.group != group;
    group = r.group;
    out += starts ? "<tr class=\"group-start\">" : "<tr>";
    for (size_t c : cols)
      out +=
          fmt::format("<td class=\"{}\">{}</td>", t.columns[c].align == Align::kRight ? "num" : "",
                      escape(display_text(r.cells[c], t.columns[c])));
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

// The table row of an operation: matched by its test and operation cells.
std::optional<size_t> row_of(const Table& t, const Operation& op) {
  for (size_t i = 0; i < t.rows.size(); ++i)
    if (t.rows[i].cells.size() >= 2 && t.rows[i].cells[0].text == op.test &&
        t.rows[i].cells[1].text == op.op)
      return i;
  return std::nullopt;
}

std::string note(const std::string& text) {
  return "<p class=\"note\">" + text + "</p>\n";
}

std::string operation_section(const HtmlReportInput& in, size_t index) {
  const Operation& op = in.ops[index];
  std::string out = fmt::format("<section id=\"op-{}\">\n<h2>{} — {}</h2>\n", index,
                                escape(op.test.empty() ? "(no test)" : op.test),
                                escape(op.op.empty() ? "(no operation)" : op.op));
  if (std::optional<size_t> row = row_of(in.table, op)) out += table_html(in.table, {*row});
  std::optional<size_t> drawn = drawn_run(op);
  if (!drawn) return out + note("No runs.") + "</section>\n";
  const RunFigures& run = op.runs[*drawn];
  std::string which =
      op.runs.size() == 1
          ? std::string("its only run")
          : fmt::format("run {} of {}, the one with the median wall time ({:.3f} s)", *drawn + 1,
                        op.runs.size(), run.wall_s);

  out += "<h3>Memory over time</h3>\n";
  MemoryChartData memory = memory_chart_of_run(run);
  if (memory.series.empty() || memory.series[0].points.size() < 2)
    out += note(
        "No timeline in these records, or only one sample: record one with <code>account run "
        "--timeline</code> (or <code>ACCOUNT_TIMELINE=1</code> with the shim).");
  else
    out += fmt::format("<p class=\"meta\">Sampled every few milliseconds; {}.</p>\n", which) +
           memory_chart_svg(memory);

  out += "<h3>Processes</h3>\n";
  double span = 0;
  std::vector<TimelineRow> rows = timeline_of_run(run, &span);
  if (rows.empty())
    out += note("No process records in this run.");
  else
    out += fmt::format(
               "<p class=\"meta\">One row per process, an exec chain's images in sequence; {}. "
               "Hover a bar for its command line and figures.</p>\n",
               which) +
           process_timeline_svg(rows, span);

  out += "<h3>Where the large allocations come from</h3>\n";
  IcicleNode tree = icicle_of_operation(in.backtraces, op.test, op.op, in.symbols);
  if (tree.bytes == 0)
    out += note(
        "No allocation backtraces in these records: record them with <code>account run "
        "--backtrace-min 1M</code> (or <code>ACCOUNT_BACKTRACE_MIN</code>).");
  else
    out += fmt::format(
               "<p class=\"meta\">Every run's allocations at or above the threshold, by call "
               "stack from the outermost frame down; widths by bytes ({:.2f} MiB in {} "
               "calls). Hover a frame for its calls and bytes.</p>\n",
               double(tree.bytes) / (1024.0 * 1024.0), tree.calls) +
           icicle_svg(tree);
  return out + "</section>\n";
}

std::string page_head(const std::string& title) {
  return fmt::format(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
      escape(title), kStyle, escape(title));
}

class HtmlTableRenderer : public Renderer {
 public:
  std::string render(const Table& t) const override {
    std::vector<size_t> all(t.rows.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return page_head("account") + table_html(t, all) + "</body>\n</html>\n";
  }
};

}  // namespace

std::unique_ptr<Renderer> make_html_table_renderer() {
  return std::make_unique<HtmlTableRenderer>();
}

std::vector<ProcessBacktraces> read_backtraces(const std::vector<std::string>& paths) {
  std::vector<ProcessBacktraces> out;
  for (const std::string& path : paths) {
    std::string error;
    std::unique_ptr<LineReader> reader = LineReader::open(path, &error);
    if (!reader) continue;
    std::string_view line;
    bool complete;
    while (reader->next(&line, &complete)) {
      if (line.find("\"backtraces\"") == std::string_view::npos) continue;
      std::string reason;
      if (std::optional<ProcessBacktraces> b = parse_backtraces(line, &reason))
        out.push_back(std::move(*b));
    }
  }
  return out;
}

std::string html_report(const HtmlReportInput& in) {
  std::string out = page_head(in.title);
  std::string files;
  for (const std::string& f : in.files) files += (files.empty() ? "" : ", ") + f;
  out += fmt::format("<p class=\"meta\">{} operation{} from {}.</p>\n", in.ops.size(),
                     in.ops.size() == 1 ? "" : "s", escape(files.empty() ? "<stdin>" : files));
  std::vector<size_t> all(in.table.rows.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  out += table_html(in.table, all);
  out += "<p class=\"meta\">";
  for (size_t i = 0; i < in.ops.size(); ++i)
    out += fmt::format("{}<a href=\"#op-{}\">{} {}</a>", i ? " · " : "", i, escape(in.ops[i].test),
                       escape(in.ops[i].op));
  out += "</p>\n";
  for (size_t i = 0; i < in.ops.size(); ++i) out += operation_section(in, i);
  return out + "</body>\n</html>\n";
}

}  // namespace account
