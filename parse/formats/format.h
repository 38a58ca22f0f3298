/// Every output format of account report, compare and export (the tables,
/// the pages, the exports) behind one interface; formats/registry.h names
/// them and makes the one a command asks for.
#pragma once

#include <string>
#include <vector>

#include "aggregate.h"
#include "backtrace_record.h"
#include "backtrace_report.h"
#include "sinks.h"
#include "table.h"
#include "timeline_spool.h"

namespace account {

enum class Format {
  kTable,
  kCsv,
  kJson,
  kMarkdown,
  kHtml,
  kChromeTrace,
  kPprof,
  kFolded,
  kFoldedLeaks,
  kFoldedTemporary,
  kOpenMetrics
};
/// The formats of account export (the same enum: one registry).
using ExportFormat = Format;

/// What a format is given. Table formats read `table`; pages read the table
/// and the aggregation; exports read the aggregation, and the backtraces
/// where their registry entry says they read them.
struct FormatInput {
  Table table;  ///< the command's table (report's, compare's; none for export)
  /// The table is not the operation table (--by, --percentiles): a page shows it alone.
  bool table_only = false;
  std::vector<std::string> names;  ///< report: its files; compare: the builds
  /// The aggregation, processes kept: one per build for compare, else one.
  std::vector<std::vector<Operation>> inputs;
  std::vector<std::vector<ProcessBacktraces>> backtraces;  ///< per input; may be empty
  std::vector<SymbolTable> symbols;                        ///< per input; may be empty
  /// Where the records' timeline points wait (null: they are in the records).
  const TimelineSpool* spool = nullptr;
};

class OutputFormat {
 public:
  virtual ~OutputFormat() = default;
  /// The output, written to `out` a piece at a time where it can be large.
  /// The input is the format's to keep (a page moves the aggregation in).
  virtual void write(FormatInput input, const ByteSink& out) const = 0;
};

/// A format that only turns a Table into bytes (hyperfine's table exporters).
class TableFormat : public OutputFormat {
 public:
  virtual std::string render(const Table& table) const = 0;
  void write(FormatInput input, const ByteSink& out) const final { out(render(input.table)); }
};

}  // namespace account
