/// `account report` and `account compare` as library calls: inputs in, the
/// rendered output and an exit status out. The CLI only parses options.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aggregate.h"
#include "backtrace_symbolize.h"
#include "compare_change.h"
#include "gate.h"
#include "metric.h"
#include "render.h"
#include "table.h"

namespace account {

/// Exit statuses of report and compare. When several apply the first in this
/// order wins: 1 (bad usage, unreadable input) > 3 (compare --fail-on: a
/// regression over its limit) > 5 (--fail-on: a gated figure could not be
/// judged) > 2 (some lines skipped) > 4 (failed runs were seen) > 0.
constexpr int kStatusLinesSkipped = 2;
constexpr int kStatusGateFailed = 3;
constexpr int kStatusFailedRuns = 4;
constexpr int kStatusNotJudged = 5;

/// What compare's gate (--fail-on) came to.
enum class GateStatus {
  kPassed,     ///< no gate, or every gated figure judged and none failed
  kNotJudged,  ///< none failed, and some could not be judged (without --allow-unjudged)
  kFailed      ///< a regression over its limit
};

/// The status of a report or compare whose reading came to `read_status`.
int final_status(int read_status, bool failed_runs_seen, GateStatus gate = GateStatus::kPassed);

/// Figure columns that are off by default, chosen with `--columns +NAME,...`.
/// Each sits in its section of the text table and Markdown, and after every
/// other column in CSV and JSON (the default header stays a prefix).
struct ExtraColumns {
  bool anon = false;  ///< "+anon": peak anonymous resident, after Resident (`anon_mib`)
  bool heap = false;  ///< "+heap": the largest process's heap peak, after Anon (`heap_mib`)
  /// "+exit": how the runs ended (`failed_runs`, `exit`); shown without it when a run failed.
  bool exit = false;
};

/// Parses a comma list of +NAME items ("+anon,+heap,+exit"). On failure returns nullopt and
/// puts one line naming the bad item and the known names in *error.
std::optional<ExtraColumns> parse_columns(std::string_view spec, std::string* error);

/// The Monotone-style table: one row per operation, medians over its counted
/// runs (counted_runs: failed ones only with include_failed), a Runs column in
/// the text table when some operation ran more than once, and an Exit column
/// with a footnote when a run failed.
Table operation_table(const std::vector<Operation>& ops, const ExtraColumns& extra = {},
                      bool include_failed = false);
/// `--by host`: the operation table with one row per host of each operation
/// (medians over that host's runs) and a Host column after the figures and
/// Runs ("(no host)" for records without one).
Table host_table(const std::vector<Operation>& ops, const ExtraColumns& extra = {},
                 bool include_failed = false);
/// One row per process image, under its operation (needs an Aggregator that
/// keeps processes).
Table process_table(const std::vector<Operation>& ops, const ExtraColumns& extra = {});
/// min, median, avg, p60, p70, p80, p90, p99, max of `metric` over each
/// operation's runs (linear interpolation between closest ranks).
Table percentile_table(const std::vector<Operation>& ops, Metric metric,
                       bool include_failed = false);
/// What compare found besides the table.
struct CompareFindings {
  std::vector<std::string> refusals;  ///< no change computed: a side has no counted run (a line)
  std::vector<GatedFigure> gated;     ///< every gate on every pair of inputs (gate.h)
};

/// For each operation in any input: a row per input that has it, then for each
/// later input its change against the first (compare_change.h): the change of
/// the medians in percent with a verdict mark, an interval row for people, and
/// the interval, verdict and method of each figure in CSV and JSON fields.
/// `gates` (--fail-on) are applied to every operation of every pair (the
/// first input and a later one) into findings->gated: judged where both sides
/// have enough counted runs, otherwise with the reason and the fix.
/// `sort` (--sort KEY): each test's operations by the largest of their inputs'
/// figures, largest first, and the tests by their largest operation; an
/// operation's rows stay together.
Table compare_table(const std::vector<std::string>& names,
                    const std::vector<std::vector<Operation>>& inputs,
                    const ExtraColumns& extra = {}, bool include_failed = false,
                    const std::vector<Gate>& gates = {}, CompareFindings* findings = nullptr,
                    std::optional<Metric> sort = std::nullopt);

/// `--sort KEY`: each test's rows by the metric, largest first, and the tests
/// by their largest row (ties keep their order; rows without a figure last).
void sort_rows(Table& table, Metric metric);

/// The p-th percentile (0-100) of `values`, linear between closest ranks.
double percentile(std::vector<double> values, double p);

/// Where messages for stderr go (one line each, without newline).
using MessageSink = std::function<void(const std::string&)>;
/// Where a command's output goes, piece by piece (a page section by section).
using ByteSink = std::function<void(std::string_view)>;

struct ReportOptions {
  std::vector<std::string> files;  ///< "-" is standard input; empty means "-"
  Format format = Format::kTable;
  bool by_process = false;
  bool by_host = false;  ///< --by host
  std::optional<Metric> percentiles;
  ExtraColumns columns;  ///< for the operation and process tables
  bool strict = false;
  bool include_failed = false;  ///< --include-failed
  std::optional<Metric> sort;   ///< --sort KEY (the operation table)
  /// Names backtrace frames in the HTML report (nullptr: addresses only).
  Symbolizer* symbolizer = nullptr;
  /// `--format svg --chart NAME --test T --op O`: that one chart as an SVG
  /// document instead of a table or page (NAME: memory, processes, allocations).
  std::string chart, chart_test, chart_op;
};

/// Exit status (final_status): 0 every line read, 2 some lines skipped, 1 nothing
/// readable, a file that cannot be opened or read, or (with strict) any bad
/// line, 4 some run failed. Nothing is written when the status is 1.
int run_report(const ReportOptions& options, const ByteSink& out, const MessageSink& err);
/// As above, the output in *out.
int run_report(const ReportOptions& options, std::string* out, const MessageSink& err);

struct CompareOptions {
  std::vector<std::string> files;  ///< at least two
  std::vector<std::string> names;  ///< empty: the file names
  Format format = Format::kTable;
  ExtraColumns columns;
  bool strict = false;
  bool include_failed = false;       ///< --include-failed
  std::vector<Gate> fail_on;         ///< --fail-on METRIC=PCT,...
  bool allow_unjudged = false;       ///< --allow-unjudged: what the gate cannot judge passes
  std::optional<Metric> sort;        ///< --sort KEY
  Symbolizer* symbolizer = nullptr;  ///< names backtrace frames in the HTML page
};

/// Exit status as run_report's, and with fail_on (gate.h): 3 when a gated
/// figure failed, 5 when one could not be judged (unless allow_unjudged), in
/// final_status's order; one line per failure and per reason went to `err`.
/// With fail_on, an input that does not exist is not judged (5), not unreadable (1).
/// Nothing is written when the status is 1.
int run_compare(const CompareOptions& options, const ByteSink& out, const MessageSink& err);
/// As above, the output in *out.
int run_compare(const CompareOptions& options, std::string* out, const MessageSink& err);

}  // namespace account
