#include "formats/compare_html.h"

#include <fmt/format.h>

#include <algorithm>

#include "cell_text.h"
#include "formats/chart_data.h"
#include "formats/html_page.h"
#include "formats/html_report.h"
#include "formats/svg_charts.h"
#include "report_columns.h"

namespace account {

namespace {

// The charts with one axis for all builds span the wide page.
constexpr int kSharedWidth = 1280;

std::optional<size_t> column(const Table& t, const std::string& key) {
  for (size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c].key == key) return c;
  return std::nullopt;
}

std::string cell_text(const Table& t, const Row& r, std::optional<size_t> c) {
  if (!c || *c >= r.cells.size()) return "";
  const Cell& cell = r.cells[*c];
  return cell.kind == Cell::Kind::kText ? cell.text.str() : display_text(cell, t.columns[*c]);
}

// The table's rows of one (test, operation), in order.
struct OperationRows {
  std::string test, op;
  std::vector<size_t> rows;
};

std::vector<OperationRows> operations_of(const Table& t) {
  std::optional<size_t> test = column(t, "test"), op = column(t, "operation");
  std::vector<OperationRows> out;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    // A row for people only (the interval under a change) names no operation:
    // it belongs to the one above it, never to an empty " — " of its own.
    if (!t.rows[i].machine && !out.empty()) {
      out.back().rows.push_back(i);
      continue;
    }
    std::string a = cell_text(t, t.rows[i], test), b = cell_text(t, t.rows[i], op);
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const OperationRows& o) { return o.test == a && o.op == b; });
    if (it == out.end()) it = out.insert(out.end(), OperationRows{a, b, {}});
    it->rows.push_back(i);
  }
  return out;
}

// The bars: each value row's cell and, for the later builds, their change row's cell.
std::vector<CompareFigure> figures_of(const Table& t, const std::vector<size_t>& rows) {
  std::optional<size_t> build = column(t, "build"), kind = column(t, "row");
  std::vector<CompareFigure> out;
  // The figures drawn as bars: the table's default figure columns.
  for (Metric m : figure_metrics({})) {
    std::optional<size_t> c = column(t, figure(m).key);
    if (!c) continue;
    CompareFigure f;
    f.title = t.columns[*c].markdown;
    for (size_t i : rows) {
      const Row& r = t.rows[i];
      if (cell_text(t, r, kind) != "value") continue;
      CompareFigure::Build b;
      b.name = cell_text(t, r, build);
      b.has_value = r.cells[*c].kind == Cell::Kind::kNumber;
      b.value = r.cells[*c].number;
      b.text = display_text(r.cells[*c], t.columns[*c]);
      for (size_t j : rows)
        if (cell_text(t, t.rows[j], kind) == "change_pct" &&
            cell_text(t, t.rows[j], build).rfind(b.name + " vs ", 0) == 0)
          b.change = display_text(t.rows[j].cells[*c], t.columns[*c]);
      f.builds.push_back(b);
    }
    out.push_back(f);
  }
  return out;
}

const Operation* find_op(const std::vector<Operation>& ops, const std::string& test,
                         const std::string& op) {
  for (const Operation& o : ops)
    if (o.test == test && o.op == op) return &o;
  return nullptr;
}

// The whole tree's resident curve of each build's drawn run, on one axis.
std::string memory_section(const CompareHtmlInput& in, const OperationRows& o) {
  MemoryChartData both;
  for (size_t b = 0; b < in.inputs.size(); ++b) {
    const Operation* op = find_op(in.inputs[b], o.test, o.op);
    std::optional<size_t> run = op ? drawn_run(*op) : std::nullopt;
    if (!run) continue;
    MemoryChartData d = memory_chart_of_run(op->runs[*run], 4, in.spool);
    if (d.series.empty() || d.samples < 2) continue;
    MemorySeries s = d.series[0];
    s.name = in.names[b] + ": whole tree, resident";
    s.emphasis = false;
    both.series.push_back(std::move(s));
  }
  if (both.series.empty())
    return note(
        "No build has a timeline for this operation: record with <code>account run "
        "--timeline</code> (perf-tests: <code>perf-test.sh --timeline</code>).");
  return "<p class=\"meta\">The whole tree's resident memory of each build's run with the "
         "median wall time, from its first process's start.</p>\n" +
         inline_svg(memory_chart_svg(both, kSharedWidth));
}

// Every build's process rows under its name, on one time axis.
std::string timeline_section(const CompareHtmlInput& in, const OperationRows& o) {
  std::vector<TimelineRow> rows;
  double span = 0;
  bool any = false;
  for (size_t b = 0; b < in.inputs.size(); ++b) {
    TimelineRow heading;
    heading.heading = true;
    heading.label = in.names[b];
    const Operation* op = find_op(in.inputs[b], o.test, o.op);
    std::optional<size_t> run = op ? drawn_run(*op) : std::nullopt;
    double build_span = 0;
    std::vector<TimelineRow> build_rows;
    if (run) build_rows = timeline_of_run(op->runs[*run], &build_span);
    if (!op)
      heading.label += ": not in this build's records";
    else if (build_rows.empty())
      heading.label += ": no process records";
    rows.push_back(std::move(heading));
    rows.insert(rows.end(), build_rows.begin(), build_rows.end());
    span = std::max(span, build_span);
    any = any || !build_rows.empty();
  }
  if (!any) return note("No build has process records for this operation.");
  return "<p class=\"meta\">Each build's processes under its name on one time axis, each from "
         "the start of its run with the median wall time: one row per process from its start to "
         "its end, an exec chain's images in sequence on one row, coloured by how each ended. "
         "Hover a bar for its command line and figures.</p>\n" +
         inline_svg(process_timeline_svg(rows, span, kSharedWidth));
}

std::string side_by_side(const CompareHtmlInput& in, const OperationRows& o, ChartKind kind) {
  std::string out = "<div class=\"builds\">\n";
  for (size_t b = 0; b < in.inputs.size(); ++b) {
    out += "<div>\n<h4>" + html_escape(in.names[b]) + "</h4>\n";
    const Operation* op = find_op(in.inputs[b], o.test, o.op);
    if (!op) {
      out += note("Not in this build's records.") + "</div>\n";
      continue;
    }
    HtmlReportInput one;
    if (b < in.backtraces.size()) one.backtraces = in.backtraces[b];
    if (b < in.symbols.size()) one.symbols = in.symbols[b];
    out += chart_html(one, *op, kind, 620) + "</div>\n";
  }
  return out + "</div>\n";
}

// Each later build's allocation call tree against the first's, bytes a run.
std::string allocation_difference(const CompareHtmlInput& in, const OperationRows& o) {
  if (in.inputs.size() < 2 || in.backtraces.size() < in.inputs.size()) return "";
  static const SymbolTable kNone;
  auto tree_of = [&](size_t b, size_t* runs) {
    const Operation* op = find_op(in.inputs[b], o.test, o.op);
    *runs = op ? op->runs.size() : 0;
    return icicle_of_operation(in.backtraces[b], o.test, o.op,
                               b < in.symbols.size() ? in.symbols[b] : kNone);
  };
  size_t runs0 = 0;
  IcicleNode first = tree_of(0, &runs0);
  std::string out;
  for (size_t b = 1; b < in.inputs.size(); ++b) {
    size_t runs = 0;
    IcicleNode later = tree_of(b, &runs);
    if (first.bytes == 0 && later.bytes == 0) continue;
    out += fmt::format(
        "<h3>What grew and shrank: {} against {}</h3>\n<p class=\"meta\">Both builds' call "
        "trees merged by function, bytes a run; widths by the larger of the two, red where "
        "{} allocates more, blue where it allocates less, grey where they are equal. Hover a "
        "frame for both figures.</p>\n",
        html_escape(in.names[b]), html_escape(in.names[0]), html_escape(in.names[b]));
    out += inline_svg(icicle_diff_svg(icicle_diff(first, runs0, later, runs)));
  }
  return out;
}

}  // namespace

void compare_html(const CompareHtmlInput& in, const ByteSink& sink) {
  std::string out = page_head("account compare", true);
  std::string names;
  for (const std::string& n : in.names) names += (names.empty() ? "" : ", ") + n;
  out += fmt::format("<p class=\"meta\">Builds: {}; changes are against {}.</p>\n",
                     html_escape(names), html_escape(in.names.empty() ? "" : in.names[0]));
  std::vector<size_t> all(in.table.rows.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  out += table_html(in.table, all);
  out += notes_html(in.table);
  std::vector<OperationRows> ops = operations_of(in.table);
  out += "<p class=\"meta\">";
  for (size_t i = 0; i < ops.size(); ++i)
    out += fmt::format("{}<a href=\"#op-{}\">{} {}</a>", i ? " · " : "", i,
                       html_escape(ops[i].test), html_escape(ops[i].op));
  out += "</p>\n";
  sink(out);
  for (size_t i = 0; i < ops.size(); ++i) {
    const OperationRows& o = ops[i];
    out = fmt::format("<section id=\"op-{}\">\n<h2>{} — {}</h2>\n", i, html_escape(o.test),
                      html_escape(o.op));
    out += table_html(in.table, o.rows);
    out +=
        "<h3>Figures</h3>\n<p class=\"meta\">The table's figures as bars, each build's change "
        "against the first in brackets.</p>\n" +
        inline_svg(compare_bars_svg(figures_of(in.table, o.rows)));
    out += "<h3>Memory over time</h3>\n" + memory_section(in, o);
    out += "<h3>Processes</h3>\n" + timeline_section(in, o);
    out += "<h3>Where the large allocations come from</h3>\n" +
           side_by_side(in, o, ChartKind::kAllocations);
    out += allocation_difference(in, o);
    out += "</section>\n";
    sink(out);
  }
  sink(page_tail());
}

std::string compare_html(const CompareHtmlInput& in) {
  std::string out;
  compare_html(in, [&out](std::string_view bytes) { out.append(bytes); });
  return out;
}

namespace {

class ComparePageFormat : public OutputFormat {
 public:
  void write(FormatInput input, const ByteSink& out) const override {
    CompareHtmlInput in;
    in.spool = input.spool;
    in.names = std::move(input.names);
    in.inputs = std::move(input.inputs);
    in.table = std::move(input.table);
    in.backtraces = std::move(input.backtraces);
    in.symbols = std::move(input.symbols);
    compare_html(in, out);
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_compare_page_format() {
  return std::make_unique<ComparePageFormat>();
}

}  // namespace account
