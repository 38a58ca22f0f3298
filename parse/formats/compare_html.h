/// `account compare --format html`: one self-contained page with compare's
/// table and, per operation, each build's figures as bars with the change in
/// percent, the builds' memory curves on one axis, their process timelines on
/// one time axis, and each build's allocations side by side. The figures are the table's cells,
/// never computed again.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aggregate.h"
#include "backtrace_record.h"
#include "backtrace_report.h"
#include "formats/format.h"
#include "table.h"
#include "timeline_spool.h"

namespace account {

struct CompareHtmlInput {
  std::vector<std::string> names;  ///< one per build
  /// Each build's operations, aggregated keeping their processes.
  std::vector<std::vector<Operation>> inputs;
  /// compare_table(names, inputs, ...): the page shows its cells.
  Table table;
  std::vector<std::vector<ProcessBacktraces>> backtraces;  ///< per build; may be empty
  std::vector<SymbolTable> symbols;                        ///< per build; may be empty
  /// Where the records' timeline points wait (null: they are in the records):
  /// each operation's section reads back its runs' points and drops them once drawn.
  const TimelineSpool* spool = nullptr;
};

/// The page, written to `out` a piece at a time: each operation's section is
/// made (its points read back), written and dropped before the next.
void compare_html(const CompareHtmlInput& input, const ByteSink& out);
std::string compare_html(const CompareHtmlInput& input);

/// The page as a format (format.h): compare's table, one aggregation per build
/// (`names`), each build's backtraces and symbols.
std::unique_ptr<OutputFormat> make_compare_page_format();

}  // namespace account
