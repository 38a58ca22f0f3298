#include "compare/compare_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cell_text.h"
#include "compare/change.h"

namespace account {

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

namespace {

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
  t.columns.push_back(without_shim_column());
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
        RunFigures median = median_of_runs(counted[i]);
        if (counted[i].empty())
          add_blank_figures(r, extra);
        else
          add_figures(r, median, extra, &t.notes, operation_name(test, op) + " (" + names[i] + ")");
        r.cells.push_back(Cell::of_integer(int64_t(counted[i].size())));
        r.cells.push_back(without_shim_cell(counted[i], median));
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
          r.cells.insert(r.cells.end(), 2, Cell::empty());  // runs, processes_without_shim
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
          cell.significant = verdict && std::string_view(cell.mark) == "*";
          r.cells.push_back(cell);
          if (c.estimate.verdict != Verdict::kTooFewRuns)
            interval.cells[r.cells.size() - 1] = Cell::of_text(interval_text(c));
        }
        r.cells.insert(r.cells.end(), 2, Cell::empty());  // runs, processes_without_shim
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
  if (failed) {
    LabelledOperations sides;  // each operation of each file, named by both
    for (const std::string& test : tests)
      for (const std::string& op : ops_of_test[test]) {
        const auto& slots = found[{test, op}];
        for (size_t i = 0; i < slots.size(); ++i)
          if (slots[i])
            sides.emplace_back(operation_name(test, op) + " (" + names[i] + ")", slots[i]);
      }
    add_failed_note(t, include_failed, sides);
  }
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

}  // namespace account
