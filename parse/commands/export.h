/// `account export` as a library call: records in, one open format out
/// (Chrome/Perfetto trace, pprof profile, folded stacks, OpenMetrics text) and
/// an exit status. The CLI only parses options and writes the bytes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backtrace_symbolize.h"
#include "formats/format.h"
#include "sinks.h"

namespace account {

/// "chrome-trace", "pprof", "folded", "openmetrics"; nullopt otherwise.
std::optional<ExportFormat> parse_export_format(std::string_view name);
/// The names parse_export_format knows, for messages: "chrome-trace, pprof, ...".
std::string export_format_names();
/// True for formats whose output is binary (not for a terminal).
bool export_format_is_binary(ExportFormat format);

struct ExportOptions {
  std::vector<std::string> files;  ///< "-" is standard input; empty means "-"
  ExportFormat format = ExportFormat::kFolded;
  bool strict = false;
  /// Names backtrace frames for pprof and folded (nullptr: module+offset only).
  Symbolizer* symbolizer = nullptr;
};

/// Reads the records as `account report` does (same bad-line messages) and
/// writes the export to `out`, in pieces as it is made (nothing when the
/// status is 1). Exit status as run_report: 0 every line read, 2 some lines
/// skipped, 1 nothing readable or a file that cannot be read.
int run_export(const ExportOptions& options, const ByteSink& out, const MessageSink& err);
/// As above, the export in *out.
int run_export(const ExportOptions& options, std::string* out, const MessageSink& err);

/// As run_export, from records given as text (options.files unused); `name`
/// stands for the text in messages. account watch --textfile and --push
/// publish its records so far this way.
int run_export_text(const ExportOptions& options, std::string records, const std::string& name,
                    std::string* out, const MessageSink& err);

}  // namespace account
