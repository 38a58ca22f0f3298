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
div.tip { position: fixed; display: none; pointer-events: none; z-index: 10; max-width: 520px;
          background: #222; color: #fff; font-size: 12px; line-height: 1.35; padding: 0.4em 0.6em;
          border-radius: 4px; white-space: pre-line; overflow-wrap: anywhere; }
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

// HTML parses an inline <svg> into the SVG namespace by itself: without the
// xmlns attribute the page holds no "http:" at all.
std::string inline_svg(std::string svg) {
  const std::string ns = " xmlns=\"http://www.w3.org/2000/svg\"";
  if (size_t at = svg.find(ns); at != std::string::npos) svg.erase(at, ns.size());
  return svg;
}

// One chart of an operation: the SVG, or the note that says why there is
// none (HTML: code in <code>), and a line on what it shows.
struct Drawn {
  std::string svg, note, meta;
};

Drawn draw(const HtmlReportInput& in, const Operation& op, ChartKind kind) {
  Drawn d;
  std::optional<size_t> drawn = drawn_run(op);
  if (kind != ChartKind::kAllocations && !drawn) {
    d.note = "No runs.";
    return d;
  }
  const RunFigures* run = drawn ? &op.runs[*drawn] : nullptr;
  std::string which =
      op.runs.size() == 1
          ? std::string("its only run")
          : fmt::format("run {} of {}, the one with the median wall time ({:.3f} s)",
                        drawn ? *drawn + 1 : 0, op.runs.size(), run ? run->wall_s : 0.0);
  switch (kind) {
    case ChartKind::kMemory: {
      MemoryChartData memory = memory_chart_of_run(*run);
      if (memory.series.empty() || memory.samples < 2) {
        d.note =
            memory.series.empty()
                ? "No timeline in these records: record one with <code>account run "
                  "--timeline</code> (perf-tests: <code>perf-test.sh --timeline</code>; the shim "
                  "alone: <code>ACCOUNT_TIMELINE=1</code>)."
                : "Only one sample in this run's timeline: the run was shorter than the sampling "
                  "interval (<code>account run --interval MS</code> samples more often).";
        return d;
      }
      d.meta = fmt::format(
          "Resident and size of the whole process tree (the sum over the processes alive at "
          "each sample) and the resident of its largest processes; {}.",
          which);
      d.svg = memory_chart_svg(memory);
      return d;
    }
    case ChartKind::kProcesses: {
      double span = 0;
      std::vector<TimelineRow> rows = timeline_of_run(*run, &span);
      if (rows.empty()) {
        d.note = "No process records in this run (only the tree record of account run).";
        return d;
      }
      d.meta = fmt::format(
          "One row per process from its start to its end, an exec chain's images in sequence "
          "on one row, coloured by how each ended; {}. Hover a bar for its command line and "
          "figures.",
          which);
      d.svg = process_timeline_svg(rows, span);
      return d;
    }
    case ChartKind::kAllocations: {
      IcicleNode tree = icicle_of_operation(in.backtraces, op.test, op.op, in.symbols);
      if (tree.bytes == 0) {
        d.note =
            "No allocation backtraces in these records: record them with <code>account run "
            "--backtrace-min 1M</code> (the shim alone: <code>ACCOUNT_BACKTRACE_MIN</code>).";
        return d;
      }
      d.meta = fmt::format(
          "Every run's allocations at or above the backtrace threshold, by call stack from the "
          "outermost frame down, widths by bytes ({:.2f} MiB in {} calls). Hover a frame for "
          "its calls and bytes.",
          double(tree.bytes) / (1024.0 * 1024.0), tree.calls);
      d.svg = icicle_svg(tree);
      return d;
    }
  }
  return d;
}

std::string chart_block(const Drawn& d) {
  if (d.svg.empty()) return note(d.note);
  return "<p class=\"meta\">" + d.meta + "</p>\n" + inline_svg(d.svg);
}

std::string operation_section(const HtmlReportInput& in, size_t index) {
  const Operation& op = in.ops[index];
  std::string out = fmt::format("<section id=\"op-{}\">\n<h2>{} — {}</h2>\n", index,
                                escape(op.test.empty() ? "(no test)" : op.test),
                                escape(op.op.empty() ? "(no operation)" : op.op));
  if (std::optional<size_t> row = row_of(in.table, op)) out += table_html(in.table, {*row});
  out += "<h3>Memory over time</h3>\n" + chart_block(draw(in, op, ChartKind::kMemory));
  out += "<h3>Processes</h3>\n" + chart_block(draw(in, op, ChartKind::kProcesses));
  out += "<h3>Where the large allocations come from</h3>\n" +
         chart_block(draw(in, op, ChartKind::kAllocations));
  return out + "</section>\n";
}

// Hover: each chart element's <title> becomes a tooltip that follows the
// pointer (the <title> stays the no-script fallback until this runs). The
// page records what a test reads back from the DOM: how many tooltips were
// set up, its scroll width, and any script error.
constexpr const char* kScript = R"js(
(function () {
  var root = document.documentElement;
  window.addEventListener('error', function (e) {
    root.setAttribute('data-js-errors', (root.getAttribute('data-js-errors') || '') + e.message + ';');
  });
  var tip = document.createElement('div');
  tip.className = 'tip';
  document.body.appendChild(tip);
  var titles = document.querySelectorAll('svg.chart title'), i;
  for (i = 0; i < titles.length; ++i) {
    var el = titles[i].parentNode;
    el.setAttribute('data-tip', titles[i].textContent);
    el.removeChild(titles[i]);
  }
  document.addEventListener('mousemove', function (e) {
    var el = e.target.closest ? e.target.closest('[data-tip]') : null;
    if (!el) { tip.style.display = 'none'; return; }
    tip.textContent = el.getAttribute('data-tip');
    tip.style.display = 'block';
    var x = e.clientX + 14, y = e.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth - 8) x = Math.max(8, e.clientX - tip.offsetWidth - 14);
    if (y + tip.offsetHeight > window.innerHeight - 8) y = Math.max(8, e.clientY - tip.offsetHeight - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  });
  root.setAttribute('data-tips', String(titles.length));
  root.setAttribute('data-scroll-width', String(root.scrollWidth));
})();
)js";

std::string page_tail() {
  return fmt::format("<script>{}</script>\n</body>\n</html>\n", kScript);
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
    return page_head("account") + table_html(t, all) + page_tail();
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
  if (in.ops.empty()) return out + note("No records in these files.") + page_tail();
  std::vector<size_t> all(in.table.rows.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  out += table_html(in.table, all);
  out += "<p class=\"meta\">";
  for (size_t i = 0; i < in.ops.size(); ++i)
    out += fmt::format("{}<a href=\"#op-{}\">{} {}</a>", i ? " · " : "", i, escape(in.ops[i].test),
                       escape(in.ops[i].op));
  out += "</p>\n";
  for (size_t i = 0; i < in.ops.size(); ++i) out += operation_section(in, i);
  return out + page_tail();
}

std::optional<ChartKind> parse_chart_kind(std::string_view name) {
  if (name == "memory") return ChartKind::kMemory;
  if (name == "processes") return ChartKind::kProcesses;
  if (name == "allocations") return ChartKind::kAllocations;
  return std::nullopt;
}

std::string chart_svg(const HtmlReportInput& in, size_t index, ChartKind kind, std::string* note) {
  Drawn d = draw(in, in.ops[index], kind);
  *note = "";
  if (!d.svg.empty()) return d.svg;
  // The note as plain text in a small SVG of its own.
  std::string text;
  bool tag = false;
  for (char c : d.note) {
    if (c == '<') tag = true;
    if (!tag) text += c;
    if (c == '>') tag = false;
  }
  *note = text;
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"880\" height=\"40\" "
      "viewBox=\"0 0 880 40\" font-family=\"system-ui, sans-serif\" font-size=\"12\">"
      "<text x=\"8\" y=\"24\" fill=\"#555\">{}</text></svg>\n",
      xml_escape(text));
}

int render_pictures(const ReportOptions& options, const std::vector<std::string>& files,
                    std::vector<Operation> ops, std::string* out, const MessageSink& err) {
  HtmlReportInput html;
  html.files = files;
  html.table = operation_table(ops, options.columns, options.include_failed);
  if (options.sort) sort_rows(html.table, *options.sort);
  std::vector<std::string> paths;
  for (const std::string& f : files)
    if (f != "-") paths.push_back(f);
  html.backtraces = read_backtraces(paths);
  if (!html.backtraces.empty() && options.symbolizer)
    html.symbols = symbolize(html.backtraces, *options.symbolizer);
  html.ops = std::move(ops);
  if (options.chart.empty()) {
    *out = html_report(html);
    return 0;
  }
  std::optional<ChartKind> kind = parse_chart_kind(options.chart);
  size_t index = 0;
  while (index < html.ops.size() &&
         (html.ops[index].test != options.chart_test || html.ops[index].op != options.chart_op))
    ++index;
  if (!kind || index == html.ops.size()) {
    std::string known;
    for (const Operation& o : html.ops)
      known += fmt::format("{}'{}/{}'", known.empty() ? "" : ", ", o.test, o.op);
    err(kind ? fmt::format("account: report: no operation '{}/{}' in the records (there: {})",
                           options.chart_test, options.chart_op, known)
             : fmt::format("account: report: unknown chart '{}' (known: memory, processes, "
                           "allocations)",
                           options.chart));
    return 1;
  }
  std::string note;
  *out = chart_svg(html, index, *kind, &note);
  if (!note.empty())
    err("account: report: " + options.chart_test + "/" + options.chart_op + ": " + note);
  return 0;
}

}  // namespace account
