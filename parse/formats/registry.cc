#include "formats/registry.h"

#include <fmt/format.h>

#include "formats/compare_html.h"
#include "formats/exporter.h"
#include "formats/html_report.h"
#include "formats/table_formats.h"

namespace account {

namespace {

constexpr unsigned kTables = unsigned(Command::kReport) | unsigned(Command::kCompare);
constexpr unsigned kExport = unsigned(Command::kExport);

template <std::unique_ptr<OutputFormat> (*make)()>
std::unique_ptr<OutputFormat> any_command(Command) {
  return make();
}

std::unique_ptr<OutputFormat> html_for(Command command) {
  return command == Command::kCompare ? make_compare_page_format() : make_html_report_format();
}

const FormatEntry kEntries[] = {
    {Format::kTable, "table", nullptr, kTables, false, false, false,
     any_command<make_text_table_format>},
    {Format::kCsv, "csv", nullptr, kTables, false, false, false, any_command<make_csv_format>},
    {Format::kJson, "json", nullptr, kTables, false, false, false, any_command<make_json_format>},
    {Format::kMarkdown, "markdown", "md", kTables, false, false, false,
     any_command<make_markdown_format>},
    {Format::kHtml, "html", nullptr, kTables, false, false, true, html_for},
    {Format::kChromeTrace, "chrome-trace", nullptr, kExport, false, false, true,
     any_command<make_chrome_trace_format>},
    {Format::kPprof, "pprof", nullptr, kExport, true, true, false, any_command<make_pprof_format>},
    {Format::kFolded, "folded", nullptr, kExport, false, true, false,
     any_command<make_folded_format>},
    {Format::kFoldedLeaks, "folded-leaks", nullptr, kExport, false, true, false,
     any_command<make_folded_leaks_format>},
    {Format::kFoldedTemporary, "folded-temporary", nullptr, kExport, false, true, false,
     any_command<make_folded_temporary_format>},
    {Format::kOpenMetrics, "openmetrics", nullptr, kExport, false, false, false,
     any_command<make_openmetrics_format>},
};

bool serves(const FormatEntry& e, Command command) {
  return (e.commands & unsigned(command)) != 0;
}

}  // namespace

std::span<const FormatEntry> format_entries() {
  return kEntries;
}

const FormatEntry& format_entry(Format format) {
  for (const FormatEntry& e : kEntries)
    if (e.format == format) return e;
  return kEntries[0];
}

std::optional<Format> parse_format(std::string_view name, Command command) {
  for (const FormatEntry& e : kEntries)
    if (serves(e, command) && (name == e.name || (e.alias && name == e.alias))) return e.format;
  return std::nullopt;
}

std::string format_names(Command command) {
  std::string names;
  for (const FormatEntry& e : kEntries)
    if (serves(e, command)) names += fmt::format("{}{}", names.empty() ? "" : ", ", e.name);
  return names;
}

std::unique_ptr<OutputFormat> make_format(Format format, Command command) {
  return format_entry(format).make(command);
}

std::string render_table(Format format, Table table) {
  FormatInput input;
  input.table = std::move(table);
  std::string out;
  make_format(format, Command::kReport)->write(std::move(input), [&](std::string_view bytes) {
    out.append(bytes);
  });
  return out;
}

// The exports read the aggregation of all their files as one input.
const std::vector<Operation>& export_ops(const FormatInput& input) {
  static const std::vector<Operation> kNone;
  return input.inputs.empty() ? kNone : input.inputs.front();
}

const std::vector<ProcessBacktraces>& export_backtraces(const FormatInput& input) {
  static const std::vector<ProcessBacktraces> kNone;
  return input.backtraces.empty() ? kNone : input.backtraces.front();
}

const SymbolTable& export_symbols(const FormatInput& input) {
  static const SymbolTable kNone;
  return input.symbols.empty() ? kNone : input.symbols.front();
}

}  // namespace account
