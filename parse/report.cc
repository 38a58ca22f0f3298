#include "report.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>

#include "bad_lines.h"
#include "by_host.h"
#include "comma_list.h"
#include "compare_change.h"
#include "compare_html.h"
#include "html_report.h"
#include "reader.h"
#include "timeline_spool.h"

namespace account {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

Column text_column(std::string key, std::string heading, std::string markdown, size_t sep = 2) {
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
  t.columns.push_back(test);
  t.columns.push_back(op);
}

std::string operation_name(const std::string& test, const std::string& op) {
  return test.empty() ? op : test + "/" + op;
}

// Marks a figure some processes of the operation were not counted in.
constexpr char kPartlyCountedMark[] = "\u2020";  // †

// The figure columns and add_figures below must agree on the extra columns.
size_t add_figure_columns(Table& t, const ExtraColumns& extra) {
  size_t first = t.columns.size();
  t.columns.push_back(number_column("cpu_s", "", "CPU(s)", "CPU (s)", 6, 2, 2));
  t.columns.push_back(number_column("size_mib", "", "Size  ", "Max size (MiB)", 7, 2, 2));
  t.columns.push_back(
      number_column("resident_mib", "", "Resident ", "Max resident (MiB)", 7, 2, 2));
  if (extra.anon) {
    Column anon = number_column("anon_mib", "", "Anon  ", "Max anon (MiB)", 7, 2, 2);
    anon.machine_last = true;  // the CSV header design.md fixes stays a prefix
    t.columns.push_back(anon);
  }
  if (extra.heap) {
    Column heap = number_column("heap_mib", "", "Heap  ", "Max heap (MiB)", 7, 2, 2);
    heap.machine_last = true;
    t.columns.push_back(heap);
  }
  size_t last_maximum = t.columns.size() - 1;
  t.columns.push_back(number_column("copied_mib", "Copied", "(MiB) ", "Copied (MiB)", 7, 3, 1));
  t.columns.push_back(number_column("malloc_mib", "Malloc", "(MiB) ", "Malloc (MiB)", 7, 2, 1));
  t.spans.push_back(Span{first + 1, last_maximum, "Maximum (MiB) "});
  return first;
}

// The metrics of the figure columns, in their order.
std::vector<Metric> figure_metrics(const ExtraColumns& extra) {
  std::vector<Metric> out = {Metric::kCpu, Metric::kSize, Metric::kResident};
  if (extra.anon) out.push_back(Metric::kAnon);
  if (extra.heap) out.push_back(Metric::kHeap);
  out.push_back(Metric::kCopied);
  out.push_back(Metric::kMalloc);
  return out;
}

size_t figure_count(const ExtraColumns& extra) {
  return figure_metrics(extra).size();
}

// A figure nobody counted is unknown ("–"), never 0. One some processes were
// not counted in gets a mark, and `notes` a footnote saying how many.
void add_figures(Row& r, const RunFigures& f, const ExtraColumns& extra,
                 std::vector<std::string>* notes = nullptr, const std::string& label = "") {
  bool partly = false;
  for (Metric m : figure_metrics(extra)) {
    Cell cell = metric_counted(f, m) ? Cell::of_number(metric_of(f, m)) : Cell::unknown();
    if (notes && metric_partly_counted(f, m)) {
      cell.mark = kPartlyCountedMark;
      partly = true;
    }
    r.cells.push_back(cell);
  }
  if (partly)
    notes->push_back(fmt::format("{} {}: {}; its Copied and Malloc leave theirs out.",
                                 kPartlyCountedMark, label, without_shim_note(f)));
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

void add_failed_note(Table& t, bool include_failed) {
  t.notes.push_back(
      include_failed
          ? "Exit: failed runs (exit status not 0, a signal, --timeout, interrupted) are "
            "counted in the figures and Runs (--include-failed)."
          : "Exit: failed runs (exit status not 0, a signal, --timeout, interrupted) are left "
            "out of the figures and Runs; --include-failed counts them.");
}

Column runs_column(bool in_table) {
  Column c = number_column("runs", "", "Runs", "Runs", 4, 2, 0);
  c.in_table = in_table;
  return c;
}

Column data_column(std::string key) {
  Column c = number_column(std::move(key), "", "", "", 0, 2, 3);
  c.in_table = false;
  return c;
}

bool any_repeated(const std::vector<Operation>& ops) {
  return std::any_of(ops.begin(), ops.end(), [](const Operation& o) { return o.runs.size() > 1; });
}

}  // namespace

std::optional<ExtraColumns> parse_columns(std::string_view spec, std::string* error) {
  struct Known {
    const char* name;
    bool ExtraColumns::*flag;
  };
  static const Known kKnown[] = {
      {"anon", &ExtraColumns::anon}, {"heap", &ExtraColumns::heap}, {"exit", &ExtraColumns::exit}};
  std::string known;
  for (const Known& k : kKnown) known += fmt::format("{}+{}", known.empty() ? "" : ", ", k.name);
  ExtraColumns out;
  for (std::string_view item : comma_list(spec)) {
    if (item.size() < 2 || item[0] != '+') {
      *error = fmt::format("--columns '{}': '{}' is not +NAME (known: {})", spec, item, known);
      return std::nullopt;
    }
    std::string_view name = item.substr(1);
    const Known* k = std::find_if(std::begin(kKnown), std::end(kKnown),
                                  [&](const Known& k) { return name == k.name; });
    if (k == std::end(kKnown)) {
      *error = fmt::format("--columns '{}': unknown column '{}' (known: {})", spec, name, known);
      return std::nullopt;
    }
    out.*(k->flag) = true;
  }
  return out;
}

int final_status(int read_status, bool failed_runs_seen, GateStatus gate) {
  if (read_status == 1) return 1;
  if (gate == GateStatus::kFailed) return kStatusGateFailed;
  if (gate == GateStatus::kNotJudged) return kStatusNotJudged;
  if (read_status != 0) return read_status;
  return failed_runs_seen ? kStatusFailedRuns : 0;
}

void sort_rows(Table& t, Metric metric) {
  std::string key = info_of(metric).key;
  size_t c = 0;
  while (c < t.columns.size() && t.columns[c].key != key) ++c;
  if (c == t.columns.size()) return;
  auto value = [&](const Row& r) {
    const Cell& cell = r.cells[c];
    return cell.kind == Cell::Kind::kNumber ? cell.number : -1.0;  // blank: last
  };
  std::vector<std::string> groups;
  std::map<std::string, double> top;
  for (const Row& r : t.rows) {
    auto [it, first] = top.emplace(r.group, value(r));
    if (first)
      groups.push_back(r.group);
    else
      it->second = std::max(it->second, value(r));
  }
  std::map<std::string, size_t> rank;
  std::stable_sort(groups.begin(), groups.end(),
                   [&](const std::string& a, const std::string& b) { return top[a] > top[b]; });
  for (size_t i = 0; i < groups.size(); ++i) rank[groups[i]] = i;
  std::stable_sort(t.rows.begin(), t.rows.end(), [&](const Row& a, const Row& b) {
    if (a.group != b.group) return rank[a.group] < rank[b.group];
    return value(a) > value(b);
  });
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double rank = p / 100.0 * double(values.size() - 1);
  size_t lo = size_t(std::floor(rank));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (rank - double(lo));
}

Table operation_table(const std::vector<Operation>& ops, const ExtraColumns& extra,
                      bool include_failed) {
  bool failed = any_failed(ops);
  bool exit = exit_columns_shown(extra, failed);
  Table t;
  add_label_columns(t);
  add_figure_columns(t, extra);
  t.columns.push_back(runs_column(any_repeated(ops)));
  t.columns.push_back(data_column("wall_s"));
  t.columns.push_back(data_column("processes"));
  Column without_shim = number_column("processes_without_shim", "", "", "", 0, 2, 0);
  without_shim.in_table = false;  // the table says it in the † footnote
  t.columns.push_back(without_shim);
  if (exit) add_exit_columns(t);
  for (const Operation& o : ops) {
    std::vector<RunFigures> runs = counted_runs(o, include_failed);
    RunFigures m = median_of_runs(runs);
    Row r;
    r.group = o.test;
    r.cells.push_back(Cell::of_text(o.test));
    r.cells.push_back(Cell::of_text(o.op));
    if (runs.empty())
      add_blank_figures(r, extra);
    else
      add_figures(r, m, extra, &t.notes, operation_name(o.test, o.op));
    r.cells.push_back(Cell::of_integer(int64_t(runs.size())));
    r.cells.push_back(runs.empty() ? Cell::empty() : Cell::of_number(m.wall_s));
    r.cells.push_back(runs.empty() ? Cell::empty() : Cell::of_number(double(m.processes)));
    // How many processes the figures leave out: the count the † note gives.
    r.cells.push_back(runs.empty() ? Cell::empty()
                                   : Cell::of_integer(int64_t(m.processes_without_shim)));
    if (exit) add_exit_cells(r, o);
    t.rows.push_back(std::move(r));
  }
  if (failed) add_failed_note(t, include_failed);
  return t;
}

Table host_table(const std::vector<Operation>& ops, const ExtraColumns& extra,
                 bool include_failed) {
  std::vector<HostOperation> hosts = operations_by_host(ops);
  std::vector<Operation> parts;
  for (const HostOperation& h : hosts) parts.push_back(h.operation);
  // The operation table's rows, one per part, with the host after Runs.
  Table t = operation_table(parts, extra, include_failed);
  auto runs = std::find_if(t.columns.begin(), t.columns.end(),
                           [](const Column& c) { return c.key == "runs"; });
  size_t at = size_t(runs - t.columns.begin()) + 1;
  t.columns.insert(t.columns.begin() + ptrdiff_t(at), text_column("host", "Host", "Host"));
  for (size_t i = 0; i < t.rows.size(); ++i)
    t.rows[i].cells.insert(t.rows[i].cells.begin() + ptrdiff_t(at),
                           Cell::of_text(host_shown(hosts[i].host)));
  return t;
}

Table process_table(const std::vector<Operation>& ops, const ExtraColumns& extra) {
  Table t;
  add_label_columns(t);
  add_figure_columns(t, extra);
  t.columns.push_back(number_column("run", "", "Run", "Run", 3, 2, 0));
  t.columns.push_back(number_column("pid", "", "PID", "PID", 3, 2, 0));
  t.columns.push_back(text_column("end", "End", "End"));
  t.columns.push_back(text_column("program", "Program", "Program"));
  t.columns.push_back(text_column("argv0", "argv[0]", "argv[0]"));
  for (const Operation& o : ops) {
    for (size_t run = 0; run < o.runs.size(); ++run) {
      for (const ProcessRow& p : o.runs[run].process_rows) {
        Row r;
        r.group = o.test;
        r.cells.push_back(Cell::of_text(o.test));
        r.cells.push_back(Cell::of_text(o.op));
        RunFigures f;
        f.cpu_s = p.cpu_s;
        f.size_bytes = p.size_bytes;
        f.resident_bytes = p.resident_bytes;
        f.anon_bytes = p.anon_bytes;
        f.heap_bytes = p.record ? p.record->heap_peak_bytes : 0;
        f.copied_bytes = p.copied_bytes;
        f.malloc_bytes = p.malloc_bytes;
        bool counted = !p.record || p.record->counted;
        f.shim_processes = counted ? 1 : 0;
        f.processes_without_shim = counted ? 0 : 1;
        add_figures(r, f, extra);
        r.cells.push_back(Cell::of_integer(int64_t(run + 1)));
        r.cells.push_back(Cell::of_integer(p.pid));
        r.cells.push_back(Cell::of_text(p.end));
        r.cells.push_back(Cell::of_text(p.program));
        r.cells.push_back(Cell::of_text(p.argv0));
        t.rows.push_back(std::move(r));
      }
    }
  }
  return t;
}

Table percentile_table(const std::vector<Operation>& ops, Metric metric, bool include_failed) {
  bool failed = any_failed(ops);
  static const double kPoints[] = {60, 70, 80, 90, 99};
  MetricInfo info = info_of(metric);
  Table t;
  add_label_columns(t);
  Column m = text_column("metric", "", "");
  m.in_table = false;
  t.columns.push_back(m);
  t.columns.push_back(number_column("runs", "", "Runs", "Runs", 4, 2, 0));
  size_t first = t.columns.size();
  t.columns.push_back(number_column("min", "", "min", "min", 7, 2, info.decimals));
  t.columns.push_back(number_column("median", "", "median", "median", 7, 2, info.decimals));
  t.columns.push_back(number_column("avg", "", "avg", "avg", 7, 2, info.decimals));
  for (double p : kPoints) {
    std::string name = fmt::format("p{}", p);
    t.columns.push_back(number_column(name, "", name, name, 7, 2, info.decimals));
  }
  t.columns.push_back(number_column("max", "", "max", "max", 7, 2, info.decimals));
  t.spans.push_back(Span{first, t.columns.size() - 1, info.heading, Align::kCenter});
  for (auto& c : t.columns)
    if (c.key != "test" && c.key != "operation" && c.key != "metric" && c.key != "runs")
      c.markdown = fmt::format("{} {}", c.markdown, info.heading);
  if (failed) add_exit_columns(t);
  for (const Operation& o : ops) {
    std::vector<double> v;
    for (const RunFigures& r : counted_runs(o, include_failed)) v.push_back(metric_of(r, metric));
    Row r;
    r.group = o.test;
    r.cells.push_back(Cell::of_text(o.test));
    r.cells.push_back(Cell::of_text(o.op));
    r.cells.push_back(Cell::of_text(info.key));
    r.cells.push_back(Cell::of_integer(int64_t(v.size())));
    if (v.empty()) {
      for (size_t i = 0; i < 3 + std::size(kPoints) + 1; ++i) r.cells.push_back(Cell::empty());
      if (failed) add_exit_cells(r, o);
      t.rows.push_back(std::move(r));
      continue;
    }
    r.cells.push_back(Cell::of_number(*std::min_element(v.begin(), v.end())));
    r.cells.push_back(Cell::of_number(percentile(v, 50)));
    r.cells.push_back(Cell::of_number(std::accumulate(v.begin(), v.end(), 0.0) / double(v.size())));
    for (double p : kPoints) r.cells.push_back(Cell::of_number(percentile(v, p)));
    r.cells.push_back(Cell::of_number(*std::max_element(v.begin(), v.end())));
    if (failed) add_exit_cells(r, o);
    t.rows.push_back(std::move(r));
  }
  if (failed) add_failed_note(t, include_failed);
  return t;
}

namespace {

// "+2.1..+9.4": an interval in percent, as short as its size allows; the
// bounds of a change beyond noise with the digits they need not to read 0.
std::string interval_text(const MetricChange& c) {
  if (c.estimate.method == "exact") return "exact";
  if (!c.low_pct || !c.high_pct) return "N/A";
  bool flagged = c.estimate.verdict == Verdict::kWorse || c.estimate.verdict == Verdict::kBetter;
  auto bound = [&](double v) {
    int decimals = std::abs(v) < 10 ? 1 : 0;
    if (flagged) decimals = nonzero_decimals(v, decimals);
    std::string s = fmt::format("{:+.{}f}", v, decimals);
    return s == "-0.0" || s == "+0.0" ? std::string("0.0") : s;
  };
  return bound(*c.low_pct) + ".." + bound(*c.high_pct);
}

// A change's mark; a space where there is none, so the changes of a row line up.
const char* mark_of(Verdict v) {
  switch (v) {
    case Verdict::kWorse:
    case Verdict::kBetter:
      return "*";
    case Verdict::kNoise:
      return "~";
    default:
      return " ";
  }
}

// The Note of a change row without a verdict (`where`: " where runs vary"
// when exact figures still have one).
std::string too_few_runs(size_t a, size_t b, size_t need, const char* where = "") {
  return fmt::format("no verdict{}: {} and {} runs ({} a side needed)", where, a, b, need);
}

// The machine-only fields of each figure's change: interval, verdict, method.
void add_change_columns(Table& t, const std::vector<Metric>& metrics) {
  for (Metric m : metrics) {
    std::string key = info_of(m).key;
    for (const char* suffix : {"_low_pct", "_high_pct"}) {
      Column c = data_column(key + suffix);
      c.machine_last = true;
      t.columns.push_back(c);
    }
    for (const char* suffix : {"_verdict", "_method"}) {
      Column c = text_column(key + suffix, "", "");
      c.in_table = false;
      c.machine_last = true;
      t.columns.push_back(c);
    }
  }
}

Cell optional_number(std::optional<double> v) {
  return v ? Cell::of_number(*v) : Cell::empty();
}

}  // namespace

Table compare_table(const std::vector<std::string>& names,
                    const std::vector<std::vector<Operation>>& inputs, const ExtraColumns& extra,
                    bool include_failed, const std::vector<Gate>& gates, CompareFindings* findings,
                    std::optional<Metric> sort) {
  // The union of operations: tests in order of first appearance (first input
  // first), each test's operations likewise.
  std::vector<std::string> tests;
  std::map<std::string, std::vector<std::string>> ops_of_test;
  std::map<std::pair<std::string, std::string>, std::vector<const Operation*>> found;
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (const Operation& o : inputs[i]) {
      auto key = std::make_pair(o.test, o.op);
      auto& slots = found[key];
      if (slots.empty()) {
        slots.resize(inputs.size(), nullptr);
        if (!ops_of_test.count(o.test)) tests.push_back(o.test);
        ops_of_test[o.test].push_back(o.op);
      }
      slots[i] = &o;
    }
  }
  if (sort) {
    // An operation's rank: the largest of its inputs' figures (blank: last);
    // a test's: its largest operation's. Ties keep the order of appearance.
    auto rank = [&](const std::string& test, const std::string& op) {
      double top = -1;
      for (const Operation* o : found[{test, op}]) {
        if (!o) continue;
        std::vector<RunFigures> runs = counted_runs(*o, include_failed);
        if (!runs.empty()) top = std::max(top, metric_of(median_of_runs(runs), *sort));
      }
      return top;
    };
    std::map<std::string, double> test_top;
    for (const std::string& test : tests) {
      auto& ops = ops_of_test[test];
      std::map<std::string, double> op_top;
      for (const std::string& op : ops) op_top[op] = rank(test, op);
      std::stable_sort(ops.begin(), ops.end(), [&](const std::string& a, const std::string& b) {
        return op_top[a] > op_top[b];
      });
      test_top[test] = ops.empty() ? -1 : op_top[ops.front()];
    }
    std::stable_sort(tests.begin(), tests.end(), [&](const std::string& a, const std::string& b) {
      return test_top[a] > test_top[b];
    });
  }
  bool repeated = false, failed = false;
  for (const auto& input : inputs) {
    repeated = repeated || any_repeated(input);
    failed = failed || any_failed(input);
  }
  bool exit = exit_columns_shown(extra, failed);
  std::vector<Metric> metrics = figure_metrics(extra);

  Table t;
  add_label_columns(t);
  t.columns.push_back(text_column("build", "Build", "Build"));
  Column kind = text_column("row", "", "");
  kind.in_table = false;
  t.columns.push_back(kind);
  add_figure_columns(t, extra);
  t.columns.push_back(runs_column(repeated));
  if (exit) add_exit_columns(t);
  Column note = text_column("note", "Note", "Note");
  note.hide_when_empty = true;
  t.columns.push_back(note);
  add_change_columns(t, metrics);
  const size_t change_fields = metrics.size() * 4;
  bool any_change = false, any_verdict = false;

  auto finish_row = [&](Row& r, const std::string& note_text) {
    r.cells.push_back(note_text.empty() ? Cell::empty() : Cell::of_text(note_text));
  };
  for (const std::string& test : tests) {
    for (const std::string& op : ops_of_test[test]) {
      const auto& slots = found[{test, op}];
      std::string marking;
      size_t present = size_t(std::count_if(slots.begin(), slots.end(), [](auto* p) { return p; }));
      if (present == 1) {
        for (size_t i = 0; i < slots.size(); ++i)
          if (slots[i]) marking = "only in " + names[i];
      } else if (present < slots.size()) {
        std::string missing;
        for (size_t i = 0; i < slots.size(); ++i)
          if (!slots[i]) missing += (missing.empty() ? "" : ", ") + names[i];
        marking = "not in " + missing;
      }
      std::vector<std::vector<RunFigures>> counted(slots.size());
      for (size_t i = 0; i < slots.size(); ++i) {
        if (!slots[i]) continue;
        counted[i] = counted_runs(*slots[i], include_failed);
        Row r;
        r.group = test;
        r.cells.push_back(Cell::of_text(test));
        r.cells.push_back(Cell::of_text(op));
        r.cells.push_back(Cell::of_text(names[i]));
        r.cells.push_back(Cell::of_text("value"));
        if (counted[i].empty())
          add_blank_figures(r, extra);
        else
          add_figures(r, median_of_runs(counted[i]), extra, &t.notes,
                      operation_name(test, op) + " (" + names[i] + ")");
        r.cells.push_back(Cell::of_integer(int64_t(counted[i].size())));
        if (exit) add_exit_cells(r, *slots[i]);
        finish_row(r, marking);
        r.cells.insert(r.cells.end(), change_fields, Cell::empty());
        t.rows.push_back(std::move(r));
      }
      // The gate, where a side does not have the operation at all.
      auto unjudged = [&](size_t i, const std::string& why, const std::string& fix) {
        if (!findings) return;
        for (const Gate& g : gates)
          findings->gated.push_back(GatedFigure{g, operation_name(test, op),
                                                fmt::format("{} vs {}", names[i], names[0]), i, 0,
                                                0, std::nullopt, why, fix});
      };
      for (size_t i = 1; i < slots.size(); ++i)
        if (!slots[0] != !slots[i])
          unjudged(i, "only in " + names[slots[0] ? 0 : i],
                   "record it with both builds (or --allow-unjudged)");
      if (!slots[0]) continue;
      for (size_t i = 1; i < slots.size(); ++i) {
        if (!slots[i]) continue;
        std::string pair = fmt::format("{} vs {}", names[i], names[0]);
        Row r;
        r.group = test;
        r.cells.push_back(Cell::of_text(test));
        r.cells.push_back(Cell::of_text(op));
        r.cells.push_back(Cell::of_text(pair));
        r.cells.push_back(Cell::of_text("change_pct"));
        if (counted[0].empty() || counted[i].empty()) {
          // No successful run on a side: a change would compare failures.
          std::string sides = counted[0].empty() && counted[i].empty()
                                  ? names[0] + " and " + names[i]
                                  : names[counted[0].empty() ? 0 : i];
          std::string why = "no change: no successful run in " + sides;
          add_blank_figures(r, extra);
          r.cells.push_back(Cell::empty());
          if (exit) r.cells.insert(r.cells.end(), 2, Cell::empty());
          finish_row(r, marking.empty() ? why : marking + "; " + why);
          r.cells.insert(r.cells.end(), change_fields, Cell::empty());
          if (findings)
            findings->refusals.push_back(
                fmt::format("account: compare: {}: {} (--include-failed counts failed runs)",
                            operation_name(test, op), why));
          unjudged(i, "no successful run in " + sides,
                   "fix the failing runs, or count them with --include-failed");
          t.rows.push_back(std::move(r));
          continue;
        }
        any_change = true;
        std::vector<MetricChange> changes;
        for (Metric m : metrics) changes.push_back(metric_change(counted[0], counted[i], m));
        size_t without = size_t(std::count_if(changes.begin(), changes.end(), [](auto& c) {
          return c.estimate.verdict == Verdict::kTooFewRuns;
        }));
        bool verdict = without < changes.size();
        Row interval;
        interval.group = test;
        interval.machine = false;
        interval.cells.resize(t.columns.size());
        interval.cells[2] =
            Cell::of_text(fmt::format("  {:.0f}% interval", kCompareConfidence * 100));
        RunFigures median_a = median_of_runs(counted[0]), median_b = median_of_runs(counted[i]);
        for (const MetricChange& c : changes) {
          if (!metric_counted(median_a, c.metric) || !metric_counted(median_b, c.metric)) {
            r.cells.push_back(Cell::unknown());  // no change between unknowns
            continue;
          }
          Cell cell = c.change_pct ? Cell::of_percent(*c.change_pct) : Cell::not_applicable();
          if (verdict) cell.mark = mark_of(c.estimate.verdict);
          cell.significant = verdict && cell.mark == std::string("*");
          r.cells.push_back(cell);
          if (c.estimate.verdict != Verdict::kTooFewRuns)
            interval.cells[r.cells.size() - 1] = Cell::of_text(interval_text(c));
        }
        r.cells.push_back(Cell::empty());
        if (exit) r.cells.insert(r.cells.end(), 2, Cell::empty());
        std::string note_text = marking;
        if (without > 0) {
          const ChangeEstimate& e = changes.front().estimate;
          std::string few = too_few_runs(counted[0].size(), counted[i].size(), e.min_runs_per_side,
                                         verdict ? " where runs vary" : "");
          note_text = note_text.empty() ? few : note_text + "; " + few;
        }
        finish_row(r, note_text);
        for (const MetricChange& c : changes) {
          bool has = c.estimate.verdict != Verdict::kTooFewRuns;
          r.cells.push_back(has ? optional_number(c.low_pct) : Cell::empty());
          r.cells.push_back(has ? optional_number(c.high_pct) : Cell::empty());
          r.cells.push_back(Cell::of_text(verdict_name(c.estimate.verdict)));
          r.cells.push_back(has ? Cell::of_text(c.estimate.method) : Cell::empty());
        }
        t.rows.push_back(std::move(r));
        if (verdict) {
          any_verdict = true;
          t.rows.push_back(std::move(interval));
        }

        // The gate: every metric asked for, in the table or not (wall).
        if (!findings) continue;
        for (const Gate& g : gates) {
          // A figure not counted on a side (unknown, not 0) cannot be judged.
          std::string uncounted;
          for (size_t side : {size_t(0), i})
            if (std::any_of(counted[side].begin(), counted[side].end(),
                            [&](const RunFigures& r) { return !metric_counted(r, g.metric); }))
              uncounted += (uncounted.empty() ? "" : " and ") + names[side];
          if (!uncounted.empty()) {
            findings->gated.push_back(
                GatedFigure{g, operation_name(test, op), pair, i, 0, 0, std::nullopt,
                            "not counted in runs of " + uncounted,
                            "record it in every run (or leave it out of --fail-on)"});
            continue;
          }
          auto in_table = std::find_if(changes.begin(), changes.end(),
                                       [&](const MetricChange& c) { return c.metric == g.metric; });
          MetricChange c = in_table != changes.end()
                               ? *in_table
                               : metric_change(counted[0], counted[i], g.metric);
          // Too few runs (judge_gates says how many are needed): no change.
          GatedFigure f{g, operation_name(test, op), pair, i, 0, 0, std::nullopt, {}, {}};
          f.runs_a = counted[0].size();
          f.runs_b = counted[i].size();
          if (c.estimate.verdict != Verdict::kTooFewRuns) f.change = c;
          findings->gated.push_back(std::move(f));
        }
      }
    }
  }
  if (failed) add_failed_note(t, include_failed);
  if (any_verdict)
    t.notes.push_back(fmt::format(
        "Change: of the medians; * beyond noise (the {:.0f}% interval below it excludes no "
        "change), ~ within noise. Interval: Hodges-Lehmann of the ratio (on the log scale), from "
        "the Mann-Whitney test; "
        "\"exact\" where no run of either build varies.",
        kCompareConfidence * 100));
  else if (any_change)
    t.notes.push_back(
        fmt::format("Change: of the medians, without a verdict on noise: that needs {} runs a side "
                    "(--repeat, perf-tests' --rounds).",
                    estimate_change({}, {}, kCompareConfidence).min_runs_per_side));
  return t;
}

namespace {

// Reads every input into `aggregators` (one per input, or one for all), naming
// bad lines on `err`. Returns the exit status the reading alone calls for.
struct Input {
  std::unique_ptr<LineReader> reader;
  Aggregator* into = nullptr;
};

// `spool`: where the records' timelines wait (pages read each chart's back).
int read_inputs(std::vector<Input>& inputs, bool strict, const MessageSink& err,
                TimelineSpool* spool = nullptr) {
  uint64_t records = 0, bad = 0;
  BadLineMessages bad_lines(err);
  std::string names;
  for (Input& in : inputs) {
    ReadSummary s;
    read_records(
        *in.reader, strict,
        [&](Record&& r) {
          if (auto* p = std::get_if<ProcessRecord>(&r); p && p->timeline && spool)
            spool->put(*p->timeline);
          in.into->add(r);
        },
        [&](const BadLine& b) { bad_lines.add(b); }, &s);
    records += s.records;
    bad += s.bad_lines;
    names += (names.empty() ? "" : ", ") + in.reader->name();
    if (!in.reader->error().empty()) {
      err("account: " + in.reader->error());
      return 1;
    }
    if (s.stopped) {
      err("account: stopped at the first bad line (--strict)");
      return 1;
    }
    if (s.records == 0 && s.bad_lines == 0)
      err(fmt::format("account: {}: no records in this input", in.reader->name()));
  }
  bad_lines.finish();
  if (bad > 0 && records == 0) {
    err(fmt::format("account: no valid record in {} ({} bad line{})", names, bad,
                    bad == 1 ? "" : "s"));
    return 1;
  }
  if (bad > 0) {
    err(fmt::format("account: skipped {} bad line{}; {} record{} read", bad, bad == 1 ? "" : "s",
                    records, records == 1 ? "" : "s"));
    return kStatusLinesSkipped;
  }
  return 0;
}

// One line on stderr when unlabelled runs were grouped by their command line.
void note_unlabelled(const std::vector<std::vector<Operation>*>& all, const MessageSink& err) {
  size_t runs = 0, commands = 0;
  for (const auto* ops : all)
    for (const Operation& o : *ops)
      if (o.unlabelled) runs += o.runs.size(), ++commands;
  if (runs == 0) return;
  err(fmt::format(
      "account: {} run{} without test and op labels, grouped by command line into {} row{}; "
      "label runs with account run --test T --op O",
      runs, runs == 1 ? "" : "s", commands, commands == 1 ? "" : "s"));
}

// Opens every input before reading any, so a wrong path fails at once.
// With `missing`, a file that does not exist is no error: its Input has no
// reader and its entry in *missing is true.
bool open_all(const std::vector<std::string>& files, std::vector<Input>* inputs,
              const MessageSink& err, std::vector<bool>* missing = nullptr) {
  bool ok = true;
  for (const std::string& f : files) {
    std::string error;
    auto reader = LineReader::open(f, &error);
    struct stat st;
    bool absent = !reader && f != "-" && ::stat(f.c_str(), &st) != 0 && errno == ENOENT;
    if (missing) missing->push_back(absent);
    if (!reader && !(absent && missing)) {
      err("account: " + error);
      ok = false;
    }
    inputs->push_back(Input{std::move(reader), nullptr});
  }
  return ok;
}

}  // namespace

int run_report(const ReportOptions& options, const ByteSink& out, const MessageSink& err) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  std::vector<Input> inputs;
  if (!open_all(files, &inputs, err)) return 1;
  bool page = (options.format == Format::kHtml || !options.chart.empty()) && !options.by_process &&
              !options.by_host && !options.percentiles;
  Aggregator aggregator(options.by_process || page);
  for (Input& in : inputs) in.into = &aggregator;
  std::optional<TimelineSpool> spool;
  int status = read_inputs(inputs, options.strict, err, page ? &spool.emplace() : nullptr);
  if (status == 1) return 1;
  std::vector<Operation> ops = aggregator.finish();
  note_unlabelled({&ops}, err);
  status = final_status(status, any_failed(ops));
  if (page) {
    int drawn =
        render_pictures(options, files, std::move(ops), out, err, spool ? &*spool : nullptr);
    return drawn ? drawn : status;
  }
  Table table = options.by_process ? process_table(ops, options.columns)
                : options.by_host  ? host_table(ops, options.columns, options.include_failed)
                : options.percentiles
                    ? percentile_table(ops, *options.percentiles, options.include_failed)
                    : operation_table(ops, options.columns, options.include_failed);
  if (options.sort) sort_rows(table, *options.sort);
  out(make_renderer(options.format)->render(table));
  return status;
}

int run_report(const ReportOptions& options, std::string* out, const MessageSink& err) {
  out->clear();
  return run_report(
      options, [out](std::string_view bytes) { out->append(bytes); }, err);
}

int run_compare(const CompareOptions& options, const ByteSink& out, const MessageSink& err) {
  std::vector<std::string> names = options.names;
  if (names.empty())
    for (const std::string& f : options.files) names.push_back(f == "-" ? "<stdin>" : f);
  bool gated = !options.fail_on.empty();
  std::vector<Input> inputs;
  // With a gate, a file that does not exist is what a failed run leaves: not judged.
  std::vector<bool> missing;
  if (!open_all(options.files, &inputs, err, gated ? &missing : nullptr)) return 1;
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  int status = 0;
  bool failed = false;
  std::vector<std::vector<Operation>> ops;
  std::optional<TimelineSpool> spool;
  if (options.format == Format::kHtml) spool.emplace();
  for (Input& in : inputs) {
    aggregators.push_back(std::make_unique<Aggregator>(options.format == Format::kHtml));
    if (!in.reader) {  // missing
      ops.emplace_back();
      continue;
    }
    in.into = aggregators.back().get();
    std::vector<Input> one;
    one.push_back(std::move(in));
    int s = read_inputs(one, options.strict, err, spool ? &*spool : nullptr);
    if (s == 1) return 1;
    status = std::max(status, s);
    ops.push_back(aggregators.back()->finish());
    failed = failed || any_failed(ops.back());
  }
  std::vector<std::vector<Operation>*> all;
  for (auto& o : ops) all.push_back(&o);
  note_unlabelled(all, err);
  CompareFindings findings;
  Table table = compare_table(names, ops, options.columns, options.include_failed, options.fail_on,
                              &findings, options.sort);
  for (const std::string& r : findings.refusals) err(r);
  GateStatus gate = GateStatus::kPassed;
  if (gated) {
    // An input without runs: one line for it, not one per operation it lacks.
    std::vector<GatedFigure> figures;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!ops[i].empty()) continue;
      std::string file = options.files[i] == "-" ? "<stdin>" : options.files[i];
      std::string what = names[i] == file ? file : names[i] + " (" + file + ")";
      for (const Gate& g : options.fail_on)
        figures.push_back(GatedFigure{
            g, what, "", i, 0, 0, std::nullopt,
            !missing.empty() && missing[i] ? "no such file" : "no runs in it",
            "check the account run that writes it (a failed run leaves it empty or missing)"});
    }
    bool first_empty = ops[0].empty();
    for (GatedFigure& f : findings.gated)
      if (!first_empty && !ops[f.later].empty()) figures.push_back(std::move(f));
    GateVerdict v = judge_gates(figures, ops.size() > 2);
    for (const std::string& r : v.failures) err(r);
    for (const std::string& r : v.within_family_noise) err(r);
    for (const std::string& r : v.unjudged) err(r);
    if (v.not_judged > 0 || v.judged == 0)
      err(fmt::format("account: compare: --fail-on: {} of {} gated figures not judged: {}",
                      v.not_judged, v.judged + v.not_judged,
                      !v.failures.empty()      ? "exit status 3, which wins over 5"
                      : options.allow_unjudged ? "passed (--allow-unjudged)"
                                               : "exit status 5 (--allow-unjudged passes them)"));
    gate = !v.failures.empty()                                              ? GateStatus::kFailed
           : (v.not_judged > 0 || v.judged == 0) && !options.allow_unjudged ? GateStatus::kNotJudged
                                                                            : GateStatus::kPassed;
  }
  if (options.format == Format::kHtml)
    compare_page(options, names, std::move(ops), std::move(table), out, spool ? &*spool : nullptr);
  else
    out(make_renderer(options.format)->render(table));
  return final_status(status, failed, gate);
}

int run_compare(const CompareOptions& options, std::string* out, const MessageSink& err) {
  out->clear();
  return run_compare(
      options, [out](std::string_view bytes) { out->append(bytes); }, err);
}

}  // namespace account
