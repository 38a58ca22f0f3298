/// The format registry: every output format of report, compare and export,
/// one entry each, and the one place a format is chosen (make_format).
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "formats/format.h"

namespace account {

/// The commands a format serves.
enum class Command : unsigned { kReport = 1, kCompare = 2, kExport = 4 };

struct FormatEntry {
  Format format;
  const char* name;   ///< --format NAME
  const char* alias;  ///< another name it answers to ("md"), or nullptr
  unsigned commands;  ///< Command bits
  bool binary;        ///< not for a terminal (pprof)
  /// Export: the records' backtraces are read and symbolized for it.
  bool reads_backtraces;
  /// The records' timelines go to a spool while reading (formats that draw
  /// them), and the aggregation keeps its processes: a page, or chrome-trace.
  bool draws;
  /// The format for a command (html: the report's page or the compare page).
  std::unique_ptr<OutputFormat> (*make)(Command);
};

/// Every format, in the order their names are listed.
std::span<const FormatEntry> format_entries();
const FormatEntry& format_entry(Format format);

/// The format `name` names for `command`; nullopt for anything else.
std::optional<Format> parse_format(std::string_view name, Command command = Command::kReport);
/// The names `command` knows, for messages: "chrome-trace, pprof, folded, openmetrics".
std::string format_names(Command command);

/// The one dispatch: the format for the command.
std::unique_ptr<OutputFormat> make_format(Format format, Command command);

/// A table in a table format, as one string (tests, and callers outside a command).
std::string render_table(Format format, Table table);

}  // namespace account
