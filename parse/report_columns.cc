#include "report_columns.h"

#include <fmt/format.h>

#include <algorithm>

#include "comma_list.h"
#include "run_end.h"

namespace account {

namespace {

// Marks a figure some processes of the operation were not counted in.
constexpr char kPartlyCountedMark[] = "\u2020";  // †

size_t figure_count(const ExtraColumns& extra) {
  return figure_metrics(extra).size();
}

}  // namespace

Column text_column(std::string key, std::string heading, std::string markdown, size_t sep) {
  Column c;
  c.key = std::move(key);
  c.heading2 = std::move(heading);
  c.markdown = std::move(markdown);
  c.align = Align::kLeft;
  c.sep = sep;
  return c;
}

Column number_column(std::string key, std::string heading1, std::string heading2,
                     std::string markdown, size_t width, size_t sep, int decimals) {
  Column c;
  c.key = std::move(key);
  c.heading1 = std::move(heading1);
  c.heading2 = std::move(heading2);
  c.markdown = std::move(markdown);
  c.width = width;
  c.sep = sep;
  c.decimals = decimals;
  return c;
}

// The label columns and the five figures of design.md, laid out as the Monotone
// seed's table: trailing spaces in the headings place them as the seed does.
void add_label_columns(Table& t) {
  Column test = text_column("test", "*Test*", "Test", 0);
  test.align = Align::kCenter;
  test.width = 15;
  Column op = text_column("operation", "Operation", "Operation", 1);
  op.width = 9;
  // An unlabelled run's operation is its command line: thousands of
  // characters for some (a test suite's), which would widen every line.
  op.max_width = 60;
  t.columns.push_back(test);
  t.columns.push_back(op);
}

std::string operation_name(const std::string& test, const std::string& op) {
  return test.empty() ? op : test + "/" + op;
}

bool ExtraColumns::shows(const Figure& f) const {
  if (!f.column.heading2) return false;
  return !f.column.option || std::find(figures.begin(), figures.end(), f.metric) != figures.end();
}

size_t add_figure_columns(Table& t, const ExtraColumns& extra) {
  size_t first = t.columns.size();
  std::optional<size_t> first_maximum, last_maximum;
  for (Metric m : figure_metrics(extra)) {
    const FigureColumn& fc = figure(m).column;
    Column c = number_column(figure(m).key, fc.heading1, fc.heading2, fc.markdown, fc.width, fc.sep,
                             fc.decimals);
    c.machine_last = fc.option != nullptr;  // the CSV header design.md fixes stays a prefix
    Summed summed = figure(m).summed;
    if (summed == Summed::kPeak || summed == Summed::kLargest) {
      if (!first_maximum) first_maximum = t.columns.size();
      last_maximum = t.columns.size();
    }
    t.columns.push_back(c);
  }
  if (first_maximum) t.spans.push_back(Span{*first_maximum, *last_maximum, "Maximum (MiB) "});
  return first;
}

std::vector<Metric> figure_metrics(const ExtraColumns& extra) {
  std::vector<Metric> out;
  for (const Figure& f : figures())
    if (extra.shows(f)) out.push_back(f.metric);
  return out;
}

std::vector<Metric> field_metrics() {
  std::vector<Metric> out;
  for (const Figure& f : figures())
    if (!f.column.heading2) out.push_back(f.metric);
  return out;
}

// A figure nobody counted is unknown ("–"), never 0. One some processes were
// not counted in gets a mark, and `notes` a footnote saying how many.
void add_figures(Row& r, const RunFigures& f, const ExtraColumns& extra,
                 std::vector<std::string>* notes, const std::string& label) {
  bool partly = false;
  for (Metric m : figure_metrics(extra)) {
    Cell cell = metric_counted(f, m) ? Cell::of_number(metric_of(f, m)) : Cell::unknown();
    if (notes && metric_partly_counted(f, m)) {
      cell.mark = kPartlyCountedMark;
      partly = true;
    }
    r.cells.push_back(cell);
  }
  if (!partly) return;
  if (f.processes_without_shim)
    notes->push_back(fmt::format("{} {}: {}; its Copied and Malloc leave theirs out.",
                                 kPartlyCountedMark, label, without_shim_note(f)));
  if (f.malloc_unseen_processes)
    notes->push_back(fmt::format("{} {}: {}; its Malloc and Heap leave theirs out.",
                                 kPartlyCountedMark, label, malloc_unseen_note(f)));
}

// Where no run is counted (every run failed) the figures are blank, not zero.
void add_blank_figures(Row& r, const ExtraColumns& extra) {
  for (size_t i = 0; i < figure_count(extra); ++i) r.cells.push_back(Cell::empty());
}

// How the runs ended: the Exit column and `failed_runs`, after every other
// column in CSV and JSON. Present with +exit, or whenever a run failed; then a
// footnote says what failed means and what the figures hold.
bool exit_columns_shown(const ExtraColumns& extra, bool failed) {
  return extra.exit || failed;
}

void add_exit_columns(Table& t) {
  Column failed = number_column("failed_runs", "", "", "", 0, 2, 0);
  failed.in_table = false;
  failed.machine_last = true;
  t.columns.push_back(failed);
  Column exit = text_column("exit", "Exit", "Exit");
  exit.machine_last = true;
  t.columns.push_back(exit);
}

void add_exit_cells(Row& r, const Operation& o) {
  std::vector<RunEnd> ends;
  for (const RunFigures& run : o.runs) ends.push_back(run.end);
  r.cells.push_back(Cell::of_integer(int64_t(failed_runs(o))));
  r.cells.push_back(Cell::of_text(ends_summary(ends)));
}

LabelledOperations labelled(const std::vector<Operation>& ops) {
  LabelledOperations out;
  for (const Operation& o : ops) out.emplace_back(operation_name(o.test, o.op), &o);
  return out;
}

void add_failed_note(Table& t, bool include_failed, const LabelledOperations& ops) {
  t.notes.push_back(fmt::format(
      "Exit: failed runs ({}) are {}", kFailedRunsAre,
      include_failed ? "counted in the figures and Runs (--include-failed)."
                     : "left out of the figures and Runs; --include-failed counts them."));
  for (const auto& [label, o] : ops) {
    size_t failed = failed_runs(*o), all = o->runs.size();
    if (failed == 0) continue;
    std::vector<RunEnd> ends;
    bool stopped = false;
    for (const RunFigures& run : o->runs) {
      ends.push_back(run.end);
      stopped = stopped || run.end.how == RunEnd::How::kStopped;
    }
    size_t left = all - failed;
    std::string of;
    if (include_failed)
      of = all == 1 ? std::string("its figures are of that run")
                    : fmt::format("its figures are of all {} runs", all);
    else if (left == 0)
      of = "no run is left for its figures";
    else
      of = fmt::format("its figures are of the {} {} run{}", left, stopped ? "ok or stopped" : "ok",
                       left == 1 ? "" : "s");
    t.notes.push_back(fmt::format("{}: {}; {}.", label, ends_summary(ends), of));
  }
}

Column runs_column(bool in_table) {
  Column c = number_column("runs", "", "Runs", "Runs", 4, 2, 0);
  c.in_table = in_table;
  return c;
}

namespace {

// A count in CSV and JSON only, empty where no run is counted.
Column machine_count_column(const char* key) {
  Column c = number_column(key, "", "", "", 0, 2, 0);
  c.in_table = false;
  return c;
}

Cell machine_count_cell(const std::vector<RunFigures>& runs, uint64_t count) {
  return runs.empty() ? Cell::empty() : Cell::of_integer(int64_t(count));
}

}  // namespace

Column without_shim_column() {
  return machine_count_column("processes_without_shim");
}

Cell without_shim_cell(const std::vector<RunFigures>& runs, const RunFigures& m) {
  return machine_count_cell(runs, m.processes_without_shim);
}

bool any_malloc_unseen(const std::vector<Operation>& ops) {
  for (const Operation& o : ops)
    for (const RunFigures& r : o.runs)
      if (r.malloc_unseen_processes) return true;
  return false;
}

Column malloc_unseen_column() {
  return machine_count_column("processes_malloc_unseen");
}

Cell malloc_unseen_cell(const std::vector<RunFigures>& runs, const RunFigures& m) {
  return machine_count_cell(runs, m.malloc_unseen_processes);
}

Column data_column(std::string key) {
  Column c = number_column(std::move(key), "", "", "", 0, 2, 3);
  c.in_table = false;
  return c;
}

bool any_repeated(const std::vector<Operation>& ops) {
  return std::any_of(ops.begin(), ops.end(), [](const Operation& o) { return o.runs.size() > 1; });
}

const std::string& columns_help() {
  static const std::string help =
      "more columns, a comma list of +NAME: +anon (peak anonymous resident), +heap (largest "
      "process heap peak), +faults (minor and major page faults), +ctxsw (voluntary and "
      "involuntary context switches), +io (MiB read and written: storage, read/write calls), "
      "+cgroup (account run's cgroup peaks: memory and tasks), +leaked (the heap at each "
      "process's end: MiB and blocks), +temporary (blocks freed before their thread's next "
      "allocation: count and MiB), +exit (how the runs ended)";
  return help;
}

std::optional<ExtraColumns> parse_columns(std::string_view spec, std::string* error) {
  std::string known;
  std::vector<std::string_view> options;  // an option may show several figures (+faults)
  for (const Figure& f : figures())
    if (f.column.option &&
        std::find(options.begin(), options.end(), f.column.option) == options.end()) {
      options.push_back(f.column.option);
      known += fmt::format("{}+{}", known.empty() ? "" : ", ", f.column.option);
    }
  known += fmt::format("{}+exit", known.empty() ? "" : ", ");
  ExtraColumns out;
  for (std::string_view item : comma_list(spec)) {
    if (item.size() < 2 || item[0] != '+') {
      *error = fmt::format("--columns '{}': '{}' is not +NAME (known: {})", spec, item, known);
      return std::nullopt;
    }
    std::string_view name = item.substr(1);
    if (name == "exit") {
      out.exit = true;
      continue;
    }
    if (std::find(options.begin(), options.end(), name) == options.end()) {
      *error = fmt::format("--columns '{}': unknown column '{}' (known: {})", spec, name, known);
      return std::nullopt;
    }
    for (const Figure& f : figures())
      if (f.column.option && name == f.column.option && !out.shows(f))
        out.figures.push_back(f.metric);
  }
  return out;
}

}  // namespace account
