#include "formats/html_report.h"

#include <fmt/format.h>

#include "cell_text.h"
#include "formats/chart_data.h"
#include "formats/html_page.h"
#include "formats/svg_charts.h"
#include "reader.h"

namespace account {

namespace {

// The table row of an operation: matched by its test and operation cells.
std::optional<size_t> row_of(const Table& t, const Operation& op) {
  for (size_t i = 0; i < t.rows.size(); ++i)
    if (t.rows[i].cells.size() >= 2 && t.rows[i].cells[0].text.str() == op.test &&
        t.rows[i].cells[1].text.str() == op.op)
      return i;
  return std::nullopt;
}

// One chart of an operation: the SVG, or the note that says why there is
// none (HTML: code in <code>), and a line on what it shows.
struct Drawn {
  std::string svg, note, meta;
};

Drawn draw(const HtmlReportInput& in, const Operation& op, ChartKind kind, int width = 880) {
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
      MemoryChartData memory = memory_chart_of_run(*run, 4, in.spool);
      if (memory.series.empty() && !memory.timeline_recorded) {
        d.note =
            "No timeline in these records: record one with <code>account run "
            "--timeline</code> (perf-tests: <code>perf-test.sh --timeline</code>; the shim "
            "alone: <code>ACCOUNT_TIMELINE=1</code>).";
        return d;
      }
      if (memory.samples < 2) {
        d.note = fmt::format(
            "{} in this run's timeline: the run ({:.1f} ms) was shorter than the sampling "
            "interval (<code>account run --interval MS</code> samples more often).",
            memory.samples == 0 ? "No sample" : "Only one sample", run->wall_s * 1000);
        return d;
      }
      d.meta = fmt::format(
          "Resident and size of the whole process tree (the sum over the processes alive at "
          "each sample) and the resident of its largest processes; {}.",
          which);
      d.svg = memory_chart_svg(memory, width);
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
      d.svg = process_timeline_svg(rows, span, width);
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
      d.svg = icicle_svg(tree, width);
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
                                html_escape(op.test.empty() ? "(no test)" : op.test),
                                html_escape(op.op.empty() ? "(no operation)" : op.op));
  if (std::optional<size_t> row = row_of(in.table, op)) out += table_html(in.table, {*row});
  out += "<h3>Memory over time</h3>\n" + chart_block(draw(in, op, ChartKind::kMemory));
  out += "<h3>Processes</h3>\n" + chart_block(draw(in, op, ChartKind::kProcesses));
  out += "<h3>Where the large allocations come from</h3>\n" +
         chart_block(draw(in, op, ChartKind::kAllocations));
  return out + "</section>\n";
}

class HtmlReportFormat : public OutputFormat {
 public:
  void write(FormatInput input, const ByteSink& out) const override {
    if (input.table_only)
      out(html_table_page(input.table));
    else
      html_report(html_report_input(std::move(input)), out);
  }
};

}  // namespace

std::string html_table_page(const Table& t) {
  std::vector<size_t> all(t.rows.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return page_head("account") + table_html(t, all) + notes_html(t) + page_tail();
}

std::unique_ptr<OutputFormat> make_html_report_format() {
  return std::make_unique<HtmlReportFormat>();
}

HtmlReportInput html_report_input(FormatInput input) {
  HtmlReportInput html;
  html.spool = input.spool;
  html.files = std::move(input.names);
  html.table = std::move(input.table);
  if (!input.inputs.empty()) html.ops = std::move(input.inputs.front());
  if (!input.backtraces.empty()) html.backtraces = std::move(input.backtraces.front());
  if (!input.symbols.empty()) html.symbols = std::move(input.symbols.front());
  return html;
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

void html_report(const HtmlReportInput& in, const ByteSink& sink) {
  std::string out = page_head(in.title);
  std::string files;
  for (const std::string& f : in.files) files += (files.empty() ? "" : ", ") + f;
  out += fmt::format("<p class=\"meta\">{} operation{} from {}.</p>\n", in.ops.size(),
                     in.ops.size() == 1 ? "" : "s", html_escape(files.empty() ? "<stdin>" : files));
  if (in.ops.empty()) return sink(out + note("No records in these files.") + page_tail());
  std::vector<size_t> all(in.table.rows.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  out += table_html(in.table, all) + notes_html(in.table);
  out += "<p class=\"meta\">";
  for (size_t i = 0; i < in.ops.size(); ++i)
    out += fmt::format("{}<a href=\"#op-{}\">{} {}</a>", i ? " · " : "", i,
                       html_escape(in.ops[i].test), html_escape(in.ops[i].op));
  out += "</p>\n";
  sink(out);
  for (size_t i = 0; i < in.ops.size(); ++i) sink(operation_section(in, i));
  sink(page_tail());
}

std::string html_report(const HtmlReportInput& in) {
  std::string out;
  html_report(in, [&out](std::string_view bytes) { out.append(bytes); });
  return out;
}

std::string chart_html(const HtmlReportInput& in, const Operation& op, ChartKind kind, int width) {
  return chart_block(draw(in, op, kind, width));
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

}  // namespace account
