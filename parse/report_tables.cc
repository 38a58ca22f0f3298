#include "report_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "by_host.h"

namespace account {

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
  for (Metric m : field_metrics()) t.columns.push_back(data_column(figure(m).key));
  t.columns.push_back(data_column("processes"));
  t.columns.push_back(without_shim_column());
  bool malloc_unseen = any_malloc_unseen(ops);
  if (malloc_unseen) t.columns.push_back(malloc_unseen_column());
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
    for (Metric f : field_metrics())
      r.cells.push_back(runs.empty() ? Cell::empty() : Cell::of_number(metric_of(m, f)));
    r.cells.push_back(runs.empty() ? Cell::empty() : Cell::of_number(double(m.processes)));
    r.cells.push_back(without_shim_cell(runs, m));
    if (malloc_unseen) r.cells.push_back(malloc_unseen_cell(runs, m));
    if (exit) add_exit_cells(r, o);
    t.rows.push_back(std::move(r));
  }
  if (failed) add_failed_note(t, include_failed, labelled(ops));
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
    CellText test(o.test), op(o.op);  // one copy for the operation's rows
    for (size_t run = 0; run < o.runs.size(); ++run) {
      for (const ProcessRow& p : o.runs[run].process_rows) {
        Row r;
        r.group = o.test;
        r.cells.push_back(Cell::of_text(test));
        r.cells.push_back(Cell::of_text(op));
        add_figures(r, p.figures, extra);
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
  if (failed) add_failed_note(t, include_failed, labelled(ops));
  return t;
}

}  // namespace account
