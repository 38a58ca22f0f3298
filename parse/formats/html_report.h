/// `account report --format html`: one self-contained page (no network
/// request, no script from elsewhere, fonts from the system) with the
/// report's table and, per operation, its row, memory over time, the process
/// timeline and where its large allocations come from.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aggregate.h"
#include "backtrace_record.h"
#include "backtrace_report.h"
#include "formats/format.h"
#include "table.h"
#include "timeline_spool.h"

namespace account {

struct HtmlReportInput {
  std::string title = "account report";
  std::vector<std::string> files;  ///< named under the title
  /// The report's table (operation_table of `ops`): its cells are shown as
  /// `account report` prints them.
  Table table;
  /// The same operations, aggregated keeping their processes.
  std::vector<Operation> ops;
  std::vector<ProcessBacktraces> backtraces;
  SymbolTable symbols;
  /// Where the records' timeline points wait (null: they are in the records):
  /// each chart reads back its run's points and drops them once drawn.
  const TimelineSpool* spool = nullptr;
};

/// The page, written to `out` a piece at a time: each operation's section is
/// made (its points read back), written and dropped before the next.
void html_report(const HtmlReportInput& input, const ByteSink& out);
std::string html_report(const HtmlReportInput& input);

/// The page as a format (format.h): the report's page of the operation table
/// and its aggregation, or a table that is not the operation table alone.
std::unique_ptr<OutputFormat> make_html_report_format();
/// The input a page is made from, taken from a format's input.
HtmlReportInput html_report_input(FormatInput input);

/// The charts of an operation, as `--chart NAME` names them.
enum class ChartKind { kMemory, kProcesses, kAllocations };
/// "memory", "processes", "allocations"; nullopt otherwise.
std::optional<ChartKind> parse_chart_kind(std::string_view name);

/// One chart of `op` for a page: a line on what it shows and the inline SVG,
/// or the note saying why there is none and how to record what it needs.
std::string chart_html(const HtmlReportInput& input, const Operation& op, ChartKind kind,
                       int width = 880);

/// One chart of ops[index] as a standalone SVG document; where there is
/// nothing to draw (no timeline, no backtraces) an SVG holding the note the
/// page would show, and the note in *note.
std::string chart_svg(const HtmlReportInput& input, size_t index, ChartKind kind,
                      std::string* note);

/// A page with one table and nothing else (the by-process and percentile tables).
std::string html_table_page(const Table& table);

/// The backtraces of every record in `paths` (files, not standard input), for
/// the icicles; lines that are not records are skipped (the table's reading
/// reports them).
std::vector<ProcessBacktraces> read_backtraces(const std::vector<std::string>& paths);

}  // namespace account
