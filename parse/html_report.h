/// `account report --format html`: one self-contained page (no network
/// request, no script from elsewhere, fonts from the system) with the
/// report's table and, per operation, its row, memory over time, the process
/// timeline and where its large allocations come from.
#pragma once

#include <string>
#include <vector>

#include "aggregate.h"
#include "backtrace_record.h"
#include "backtrace_report.h"
#include "render.h"
#include "table.h"

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
};

std::string html_report(const HtmlReportInput& input);

/// A page with one table and nothing else (the by-process and percentile
/// tables, compare): the Renderer of Format::kHtml.
std::unique_ptr<Renderer> make_html_table_renderer();

/// The backtraces of every record in `paths` (files, not standard input), for
/// the icicles; lines that are not records are skipped (the table's reading
/// reports them).
std::vector<ProcessBacktraces> read_backtraces(const std::vector<std::string>& paths);

}  // namespace account
