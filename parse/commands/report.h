/// `account report` as a library call: inputs in, the rendered output and an
/// exit status out. The CLI only parses options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backtrace_symbolize.h"
#include "commands/status.h"
#include "formats/format.h"
#include "metric.h"
#include "report_columns.h"
#include "sinks.h"

namespace account {

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

}  // namespace account
