#include "history_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "history_chart.h"

namespace account {
namespace {

std::string short_sha(const std::string& sha) {
  return sha.substr(0, 12);
}

std::string operation_of(const OperationSeries& s) {
  return s.test + "/" + s.op;
}

bool counted_in_every_run(const CommitSeries& runs, Metric m) {
  for (const auto& commit : runs)
    for (const RunFigures& r : commit)
      if (!metric_counted(r, m)) return false;
  return true;
}

Column text_column(const char* key, const char* heading, Align align = Align::kLeft) {
  Column c;
  c.key = key;
  c.heading2 = heading;
  c.markdown = heading;
  c.width = std::string_view(heading).size();
  c.align = align;
  return c;
}

Column number_column(std::string key, std::string heading, int decimals) {
  Column c;
  c.key = std::move(key);
  c.heading2 = heading;
  c.markdown = heading;
  c.width = heading.size();  // a right-aligned heading would reach into the gap before it
  c.decimals = decimals;
  return c;
}

Column machine_column(std::string key) {
  Column c;
  c.key = std::move(key);
  c.in_table = false;
  c.machine_last = true;
  return c;
}

std::string p_text(const MetricChangePoint& c) {
  return c.exact ? "exact" : fmt::format("{:.3f}", c.p_value);
}

}  // namespace

std::vector<SeriesChanges> find_changes(const History& history,
                                        const std::vector<Metric>& metrics) {
  std::vector<SeriesChanges> out;
  for (const OperationSeries& s : history.series)
    for (Metric m : metrics) {
      SeriesChanges c{&s, m, counted_in_every_run(s.runs, m), {}};
      if (c.counted) c.changes = metric_changes(s.runs, m);
      out.push_back(std::move(c));
    }
  return out;
}

Table history_table(const History& history, const std::vector<Metric>& metrics,
                    const std::vector<SeriesChanges>& changes) {
  Table t;
  t.columns.push_back(text_column("test", "Test"));
  t.columns.push_back(text_column("operation", "Operation"));
  t.columns.push_back(text_column("commit", "Commit"));
  t.columns.push_back(text_column("subject", "Subject"));
  t.columns.push_back(number_column("runs", "Runs", 0));
  for (Metric m : metrics) {
    MetricInfo i = info_of(m);
    t.columns.push_back(number_column(i.key, i.heading, i.decimals));
  }
  t.columns.push_back(text_column("change", "Change point"));
  t.columns.push_back(machine_column("sha"));
  t.columns.push_back(machine_column("commit_time"));
  for (Metric m : metrics) {
    t.columns.push_back(machine_column(std::string(info_of(m).key) + "_change_pct"));
    t.columns.push_back(machine_column(std::string(info_of(m).key) + "_change_p"));
  }
  for (const OperationSeries& s : history.series) {
    for (size_t i = 0; i < s.commits.size(); ++i) {
      Row r;
      r.group = operation_of(s);
      r.cells.push_back(Cell::of_text(s.test));
      r.cells.push_back(Cell::of_text(s.op));
      r.cells.push_back(Cell::of_text(short_sha(s.commits[i].sha)));
      r.cells.push_back(Cell::of_text(s.commits[i].subject));
      r.cells.push_back(Cell::of_integer(int64_t(s.runs[i].size())));
      RunFigures median = median_of_runs(s.runs[i]);
      std::vector<std::string> marks;
      std::vector<Cell> machine;
      for (Metric m : metrics) {
        r.cells.push_back(metric_counted(median, m) ? Cell::of_number(metric_of(median, m))
                                                    : Cell::unknown());
        const MetricChangePoint* here = nullptr;
        for (const SeriesChanges& c : changes)
          if (c.series == &s && c.metric == m)
            for (const MetricChangePoint& p : c.changes)
              if (p.index == i) here = &p;
        if (here && here->change.change_pct) {
          marks.push_back(
              fmt::format("{} {}", metric_name(m), percent_text(*here->change.change_pct, true)));
          machine.push_back(Cell::of_percent(*here->change.change_pct));
          machine.push_back(here->exact ? Cell::of_number(0) : Cell::of_number(here->p_value));
        } else {
          machine.push_back(Cell::empty());
          machine.push_back(Cell::empty());
        }
      }
      std::string mark;
      for (const std::string& m : marks) mark += (mark.empty() ? "" : ", ") + m;
      r.cells.push_back(mark.empty() ? Cell::empty() : Cell::of_text(mark));
      r.cells.push_back(Cell::of_text(s.commits[i].sha));
      r.cells.push_back(Cell::of_integer(s.commits[i].time));
      r.cells.insert(r.cells.end(), machine.begin(), machine.end());
      t.rows.push_back(std::move(r));
    }
  }
  (void)history;
  return t;
}

Table change_points_table(const std::vector<SeriesChanges>& changes) {
  Table t;
  t.columns.push_back(text_column("test", "Test"));
  t.columns.push_back(text_column("operation", "Operation"));
  t.columns.push_back(text_column("commit", "Commit"));
  t.columns.push_back(text_column("subject", "Subject"));
  t.columns.push_back(text_column("metric", "Metric"));
  t.columns.push_back(number_column("before", "Before", 3));
  t.columns.push_back(number_column("after", "After", 3));
  t.columns.push_back(number_column("change_pct", "Change", 1));
  t.columns.push_back(text_column("interval", "95% interval", Align::kRight));
  t.columns.push_back(text_column("p_value", "p", Align::kRight));
  t.columns.push_back(machine_column("sha"));
  for (const SeriesChanges& c : changes) {
    for (const MetricChangePoint& p : c.changes) {
      const CommitInfo& commit = c.series->commits[p.index];
      Row r;
      r.group = operation_of(*c.series);
      r.cells.push_back(Cell::of_text(c.series->test));
      r.cells.push_back(Cell::of_text(c.series->op));
      r.cells.push_back(Cell::of_text(short_sha(commit.sha)));
      r.cells.push_back(Cell::of_text(commit.subject));
      r.cells.push_back(Cell::of_text(metric_name(c.metric)));
      // The figure's own decimals, or as many as a 1-byte change needs to show.
      Cell before = Cell::of_number(p.change.base), after = Cell::of_number(p.change.value);
      r.cells.push_back(before);
      r.cells.push_back(after);
      Cell change =
          p.change.change_pct ? Cell::of_percent(*p.change.change_pct) : Cell::not_applicable();
      change.significant = true;
      r.cells.push_back(change);
      r.cells.push_back(Cell::of_text(interval_text(p.change)));
      r.cells.push_back(Cell::of_text(p_text(p)));
      r.cells.push_back(Cell::of_text(commit.sha));
      t.rows.push_back(std::move(r));
    }
  }
  return t;
}

std::vector<GatedFigure> newest_commit_gates(const History& history,
                                             const std::vector<SeriesChanges>& changes,
                                             const std::vector<Gate>& gates, size_t* flat) {
  std::vector<GatedFigure> out;
  *flat = 0;
  for (const OperationSeries& s : history.series) {
    for (const Gate& g : gates) {
      GatedFigure f{g, operation_of(s), "", 0, 0, 0, std::nullopt, {}, {}};
      if (s.commits.back().sha != history.newest) {
        f.why = fmt::format("no runs at the newest commit {}", short_sha(history.newest));
        f.fix = "store its runs (account store add), or name an older --rev";
        out.push_back(f);
        continue;
      }
      auto c = std::find_if(changes.begin(), changes.end(), [&](const SeriesChanges& c) {
        return c.series == &s && c.metric == g.metric;
      });
      if (!c->counted) {
        f.why = "not counted in every run";
        f.fix = "record it in every run (or leave it out of --fail-on)";
        out.push_back(f);
        continue;
      }
      if (c->changes.empty()) {
        ++*flat;  // one segment: nothing before it to be worse than
        continue;
      }
      const MetricChangePoint& last = c->changes.back();
      size_t from = c->changes.size() > 1 ? c->changes[c->changes.size() - 2].index : 0;
      f.pair = fmt::format("{} vs before", short_sha(s.commits[last.index].sha));
      for (size_t i = from; i < last.index; ++i) f.runs_a += s.runs[i].size();
      for (size_t i = last.index; i < s.runs.size(); ++i) f.runs_b += s.runs[i].size();
      if (last.change.estimate.verdict != Verdict::kTooFewRuns) f.change = last.change;
      out.push_back(f);
    }
  }
  return out;
}

int run_history(Store& store, const HistoryOptions& options, std::string* out,
                const MessageSink& err) {
  std::string error;
  std::optional<History> history = load_history(store, options.range, &error);
  if (!history) {
    err("account: history: " + error);
    return 1;
  }
  // One line an operation whose runs come from several machines: its
  // figures may change with the machine, not the commit.
  for (const OperationSeries& s : history->series)
    if (s.hosts.size() > 1) {
      std::string names;
      for (const std::string& h : s.hosts)
        names += (names.empty() ? "" : ", ") + (h.empty() ? std::string("(no host)") : h);
      err(
          fmt::format("account: history: {}/{} has runs of {} machines ({}): a change point may be "
                      "a change of machine; --host NAME shows one",
                      s.test, s.op, s.hosts.size(), names));
    }
  std::vector<Metric> metrics = options.metrics;
  for (const Gate& g : options.fail_on)
    if (std::find(metrics.begin(), metrics.end(), g.metric) == metrics.end())
      metrics.push_back(g.metric);
  std::vector<SeriesChanges> changes = find_changes(*history, metrics);
  std::vector<SeriesChanges> shown;
  for (const SeriesChanges& c : changes)
    if (std::find(options.metrics.begin(), options.metrics.end(), c.metric) !=
        options.metrics.end())
      shown.push_back(c);
  Table series = history_table(*history, options.metrics, shown);
  Table points = change_points_table(shown);
  auto render = [&](const Table& t) { return render_table(options.format, t); };
  if (options.svg) {
    *out = history_svg(*history, shown);
  } else if (options.format == Format::kHtml) {
    *out = history_html(*history, shown, series, points);
  } else if (options.format == Format::kJson) {
    std::string a = render(series), b = render(points);
    a.pop_back();
    b.pop_back();
    *out = "{\"commits\": " + a + ",\n\"change_points\": " + b + "}\n";
  } else if (options.format == Format::kCsv) {
    *out = render(series);
  } else {
    *out = render(series) + "\n";
    *out += points.rows.empty() ? std::string("No change points.\n")
                                : (options.format == Format::kMarkdown ? "Change points:\n\n"
                                                                       : "Change points:\n") +
                                      render(points);
  }
  if (history->commits.empty())
    err("account: history: no stored runs in the range (account store add stores them)");
  GateStatus gate = GateStatus::kPassed;
  if (options.check) {
    size_t flat = 0;
    std::vector<GatedFigure> figures =
        newest_commit_gates(*history, changes, options.fail_on, &flat);
    GateVerdict v = judge_gates(figures, false, "history");
    v.judged += flat;
    gate = settle_gate(v, "history", options.allow_unjudged, err);
  }
  return final_status(0, false, gate);
}

}  // namespace account
