/// `account compare` as a library call: inputs in, the rendered output and an
/// exit status out. The CLI only parses options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backtrace_symbolize.h"
#include "commands/status.h"
#include "compare/gate.h"
#include "formats/format.h"
#include "metric.h"
#include "report_columns.h"
#include "sinks.h"

namespace account {

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
  /// --backtraces: instead of the table, the call stacks whose allocated bytes
  /// changed (compare/stack_diff.h), text only.
  bool backtraces = false;
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
