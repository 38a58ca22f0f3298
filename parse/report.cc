#include "report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>

#include "reader.h"

namespace account {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

double mib(uint64_t bytes) {
  return double(bytes) / kMiB;
}

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
  size_t last_maximum = t.columns.size() - 1;
  t.columns.push_back(number_column("copied_mib", "Copied", "(MiB) ", "Copied (MiB)", 7, 3, 1));
  t.columns.push_back(number_column("malloc_mib", "Malloc", "(MiB) ", "Malloc (MiB)", 7, 2, 1));
  t.spans.push_back(Span{first + 1, last_maximum, "Maximum (MiB) "});
  return first;
}

void add_figures(Row& r, const RunFigures& f, const ExtraColumns& extra) {
  r.cells.push_back(Cell::of_number(f.cpu_s));
  r.cells.push_back(Cell::of_number(mib(f.size_bytes)));
  r.cells.push_back(Cell::of_number(mib(f.resident_bytes)));
  if (extra.anon) r.cells.push_back(Cell::of_number(mib(f.anon_bytes)));
  r.cells.push_back(Cell::of_number(mib(f.copied_bytes)));
  r.cells.push_back(Cell::of_number(mib(f.malloc_bytes)));
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

double metric_of(const RunFigures& r, Metric m) {
  switch (m) {
    case Metric::kWall:
      return r.wall_s;
    case Metric::kCpu:
      return r.cpu_s;
    case Metric::kSize:
      return mib(r.size_bytes);
    case Metric::kResident:
      return mib(r.resident_bytes);
    case Metric::kCopied:
      return mib(r.copied_bytes);
    case Metric::kMalloc:
      return mib(r.malloc_bytes);
  }
  return 0;
}

struct MetricInfo {
  const char* key;
  const char* heading;
  int decimals;
};

MetricInfo info_of(Metric m) {
  switch (m) {
    case Metric::kWall:
      return {"wall_s", "Wall time (s)", 3};
    case Metric::kCpu:
      return {"cpu_s", "CPU (s)", 3};
    case Metric::kSize:
      return {"size_mib", "Maximum size (MiB)", 2};
    case Metric::kResident:
      return {"resident_mib", "Maximum resident (MiB)", 2};
    case Metric::kCopied:
      return {"copied_mib", "Copied (MiB)", 1};
    case Metric::kMalloc:
      return {"malloc_mib", "Malloc (MiB)", 1};
  }
  return {"", "", 0};
}

}  // namespace

std::optional<ExtraColumns> parse_columns(std::string_view spec, std::string* error) {
  struct Known {
    const char* name;
    bool ExtraColumns::*flag;
  };
  static const Known kKnown[] = {{"anon", &ExtraColumns::anon}};
  std::string known;
  for (const Known& k : kKnown) known += fmt::format("{}+{}", known.empty() ? "" : ", ", k.name);
  ExtraColumns out;
  size_t at = 0;
  for (;;) {
    size_t comma = spec.find(',', at);
    std::string_view item = spec.substr(at, comma == std::string_view::npos ? comma : comma - at);
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
    if (comma == std::string_view::npos) break;
    at = comma + 1;
  }
  return out;
}

std::optional<Metric> parse_metric(std::string_view name) {
  if (name == "wall") return Metric::kWall;
  if (name == "cpu") return Metric::kCpu;
  if (name == "size") return Metric::kSize;
  if (name == "resident") return Metric::kResident;
  if (name == "copied") return Metric::kCopied;
  if (name == "malloc") return Metric::kMalloc;
  return std::nullopt;
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  double rank = p / 100.0 * double(values.size() - 1);
  size_t lo = size_t(std::floor(rank));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (values[hi] - values[lo]) * (rank - double(lo));
}

Table operation_table(const std::vector<Operation>& ops, const ExtraColumns& extra) {
  Table t;
  add_label_columns(t);
  add_figure_columns(t, extra);
  t.columns.push_back(runs_column(any_repeated(ops)));
  t.columns.push_back(data_column("wall_s"));
  t.columns.push_back(data_column("processes"));
  for (const Operation& o : ops) {
    RunFigures m = median_of_runs(o.runs);
    Row r;
    r.group = o.test;
    r.cells.push_back(Cell::of_text(o.test));
    r.cells.push_back(Cell::of_text(o.op));
    add_figures(r, m, extra);
    r.cells.push_back(Cell::of_integer(int64_t(o.runs.size())));
    r.cells.push_back(Cell::of_number(m.wall_s));
    r.cells.push_back(Cell::of_number(double(m.processes)));
    t.rows.push_back(std::move(r));
  }
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
        f.copied_bytes = p.copied_bytes;
        f.malloc_bytes = p.malloc_bytes;
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

Table percentile_table(const std::vector<Operation>& ops, Metric metric) {
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
  for (const Operation& o : ops) {
    std::vector<double> v;
    for (const RunFigures& r : o.runs) v.push_back(metric_of(r, metric));
    Row r;
    r.group = o.test;
    r.cells.push_back(Cell::of_text(o.test));
    r.cells.push_back(Cell::of_text(o.op));
    r.cells.push_back(Cell::of_text(info.key));
    r.cells.push_back(Cell::of_integer(int64_t(v.size())));
    r.cells.push_back(Cell::of_number(*std::min_element(v.begin(), v.end())));
    r.cells.push_back(Cell::of_number(percentile(v, 50)));
    r.cells.push_back(Cell::of_number(std::accumulate(v.begin(), v.end(), 0.0) / double(v.size())));
    for (double p : kPoints) r.cells.push_back(Cell::of_number(percentile(v, p)));
    r.cells.push_back(Cell::of_number(*std::max_element(v.begin(), v.end())));
    t.rows.push_back(std::move(r));
  }
  return t;
}

Table compare_table(const std::vector<std::string>& names,
                    const std::vector<std::vector<Operation>>& inputs, const ExtraColumns& extra) {
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
  bool repeated = false;
  for (const auto& input : inputs) repeated = repeated || any_repeated(input);

  Table t;
  add_label_columns(t);
  t.columns.push_back(text_column("build", "Build", "Build"));
  Column kind = text_column("row", "", "");
  kind.in_table = false;
  t.columns.push_back(kind);
  add_figure_columns(t, extra);
  t.columns.push_back(runs_column(repeated));
  Column note = text_column("note", "Note", "Note");
  note.hide_when_empty = true;
  t.columns.push_back(note);

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
      std::vector<RunFigures> medians(slots.size());
      for (size_t i = 0; i < slots.size(); ++i) {
        if (!slots[i]) continue;
        medians[i] = median_of_runs(slots[i]->runs);
        Row r;
        r.group = test;
        r.cells.push_back(Cell::of_text(test));
        r.cells.push_back(Cell::of_text(op));
        r.cells.push_back(Cell::of_text(names[i]));
        r.cells.push_back(Cell::of_text("value"));
        add_figures(r, medians[i], extra);
        r.cells.push_back(Cell::of_integer(int64_t(slots[i]->runs.size())));
        r.cells.push_back(marking.empty() ? Cell::empty() : Cell::of_text(marking));
        t.rows.push_back(std::move(r));
      }
      if (!slots[0]) continue;
      for (size_t i = 1; i < slots.size(); ++i) {
        if (!slots[i]) continue;
        Row r;
        r.group = test;
        r.cells.push_back(Cell::of_text(test));
        r.cells.push_back(Cell::of_text(op));
        r.cells.push_back(Cell::of_text(fmt::format("{} vs {}", names[i], names[0])));
        r.cells.push_back(Cell::of_text("change_pct"));
        Row a, b;
        add_figures(a, medians[0], extra);
        add_figures(b, medians[i], extra);
        for (size_t c = 0; c < a.cells.size(); ++c) {
          double base = a.cells[c].number, v = b.cells[c].number;
          if (base == 0)
            r.cells.push_back(v == 0 ? Cell::of_percent(0) : Cell::not_applicable());
          else
            r.cells.push_back(Cell::of_percent((v - base) / base * 100.0));
        }
        r.cells.push_back(Cell::empty());
        r.cells.push_back(marking.empty() ? Cell::empty() : Cell::of_text(marking));
        t.rows.push_back(std::move(r));
      }
    }
  }
  return t;
}

namespace {

// Reads every input into `aggregators` (one per input, or one for all), naming
// bad lines on `err`. Returns the exit status the reading alone calls for.
struct Input {
  std::unique_ptr<LineReader> reader;
  Aggregator* into = nullptr;
};

int read_inputs(std::vector<Input>& inputs, bool strict, const MessageSink& err) {
  uint64_t records = 0, bad = 0;
  for (Input& in : inputs) {
    ReadSummary s;
    read_records(
        *in.reader, strict, [&](Record&& r) { in.into->add(r); },
        [&](const BadLine& b) { err(b.message()); }, &s);
    records += s.records;
    bad += s.bad_lines;
    if (!in.reader->error().empty()) {
      err("account: " + in.reader->error());
      return 1;
    }
    if (s.stopped) {
      err("account: stopped at the first bad line (--strict)");
      return 1;
    }
  }
  if (bad > 0 && records == 0) {
    err(fmt::format("account: no valid record in the input ({} bad line{})", bad,
                    bad == 1 ? "" : "s"));
    return 1;
  }
  if (bad > 0) {
    err(fmt::format("account: skipped {} bad line{}; {} record{} read", bad, bad == 1 ? "" : "s",
                    records, records == 1 ? "" : "s"));
    return 2;
  }
  if (records == 0) err("account: no records in the input");
  return 0;
}

// Opens every input before reading any, so a wrong path fails at once.
bool open_all(const std::vector<std::string>& files, std::vector<Input>* inputs,
              const MessageSink& err) {
  bool ok = true;
  for (const std::string& f : files) {
    std::string error;
    auto reader = LineReader::open(f, &error);
    if (!reader) {
      err("account: " + error);
      ok = false;
    }
    inputs->push_back(Input{std::move(reader), nullptr});
  }
  return ok;
}

}  // namespace

int run_report(const ReportOptions& options, std::string* out, const MessageSink& err) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  std::vector<Input> inputs;
  if (!open_all(files, &inputs, err)) return 1;
  Aggregator aggregator(options.by_process);
  for (Input& in : inputs) in.into = &aggregator;
  int status = read_inputs(inputs, options.strict, err);
  if (status == 1) return 1;
  std::vector<Operation> ops = aggregator.finish();
  Table table = options.by_process    ? process_table(ops, options.columns)
                : options.percentiles ? percentile_table(ops, *options.percentiles)
                                      : operation_table(ops, options.columns);
  *out = make_renderer(options.format)->render(table);
  return status;
}

int run_compare(const CompareOptions& options, std::string* out, const MessageSink& err) {
  std::vector<std::string> names = options.names;
  if (names.empty())
    for (const std::string& f : options.files) names.push_back(f == "-" ? "<stdin>" : f);
  std::vector<Input> inputs;
  if (!open_all(options.files, &inputs, err)) return 1;
  std::vector<std::unique_ptr<Aggregator>> aggregators;
  int status = 0;
  std::vector<std::vector<Operation>> ops;
  for (Input& in : inputs) {
    aggregators.push_back(std::make_unique<Aggregator>());
    in.into = aggregators.back().get();
    std::vector<Input> one;
    one.push_back(std::move(in));
    int s = read_inputs(one, options.strict, err);
    if (s == 1) return 1;
    status = std::max(status, s);
    ops.push_back(aggregators.back()->finish());
  }
  *out = make_renderer(options.format)->render(compare_table(names, ops, options.columns));
  return status;
}

}  // namespace account
