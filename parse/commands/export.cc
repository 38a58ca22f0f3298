#include "commands/export.h"

#include <fmt/format.h>

#include "bad_lines.h"
#include "formats/registry.h"
#include "reader.h"

namespace account {

namespace {

std::string plural(uint64_t n, const char* word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

}  // namespace

std::optional<ExportFormat> parse_export_format(std::string_view name) {
  return parse_format(name, Command::kExport);
}

std::string export_format_names() {
  return format_names(Command::kExport);
}

bool export_format_is_binary(ExportFormat format) {
  return format_entry(format).binary;
}

namespace {

// Reads every input and writes the export: the one path of every caller.
int export_readers(const ExportOptions& options,
                   const std::vector<std::unique_ptr<LineReader>>& readers, const ByteSink& out,
                   const MessageSink& err) {
  const FormatEntry& format = format_entry(options.format);
  FormatInput input;
  std::vector<ProcessBacktraces> backtraces;
  std::optional<TimelineSpool> spool;
  if (format.draws) input.spool = &spool.emplace();
  Aggregator aggregator(Kept::kProcessRecords);
  // Reading, messages and statuses as account report's (parse/report.cc, read_inputs).
  uint64_t records = 0, bad = 0;
  BadLineMessages bad_lines(err);
  std::string names;
  for (auto& reader : readers) {
    ReadSummary s;
    auto on_bad = [&](const BadLine& b) { bad_lines.add(b); };
    read_records_with_lines(
        *reader, options.strict,
        [&](Record&& r, std::string_view line) {
          // Timelines are the bulk of --timeline records: on disk for the
          // format that draws them, dropped for the others.
          if (auto* p = std::get_if<ProcessRecord>(&r); p && p->timeline) {
            if (spool)
              spool->put(*p->timeline);
            else
              p->timeline.reset();
          }
          aggregator.add(r);
          if (!format.reads_backtraces || !std::holds_alternative<ProcessRecord>(r)) return;
          std::string reason;
          std::optional<ProcessBacktraces> p = parse_backtraces(line, &reason);
          if (p) {
            backtraces.push_back(std::move(*p));
          } else if (!reason.empty()) {
            // A record whose backtraces cannot be read: named like any bad line.
            ++s.bad_lines;
            on_bad(BadLine{reader->name(), reader->line_number(), reason});
            if (options.strict) s.stopped = true;
          }
        },
        on_bad, &s);
    records += s.records;
    bad += s.bad_lines;
    names += (names.empty() ? "" : ", ") + reader->name();
    if (!reader->error().empty()) {
      err("account: " + reader->error());
      return 1;
    }
    if (s.stopped) {
      err("account: stopped at the first bad line (--strict)");
      return 1;
    }
    if (s.records == 0 && s.bad_lines == 0)
      err(fmt::format("account: {}: no records in this input", reader->name()));
  }
  bad_lines.finish();
  int status = 0;
  if (bad > 0 && records == 0) {
    err(fmt::format("account: no valid record in {} ({})", names, plural(bad, "bad line")));
    return 1;
  }
  if (bad > 0) {
    err(fmt::format("account: skipped {}; {} read", plural(bad, "bad line"),
                    plural(records, "record")));
    status = 2;
  }

  input.inputs.push_back(aggregator.finish());
  if (format.reads_backtraces && options.symbolizer)
    input.symbols.push_back(symbolize(backtraces, *options.symbolizer));
  input.backtraces.push_back(std::move(backtraces));
  make_format(options.format, Command::kExport)->write(std::move(input), out);
  return status;
}

}  // namespace

int run_export(const ExportOptions& options, std::string* out, const MessageSink& err) {
  out->clear();
  return run_export(
      options, [out](std::string_view bytes) { out->append(bytes); }, err);
}

int run_export(const ExportOptions& options, const ByteSink& out, const MessageSink& err) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  // Open every input before reading any, so a wrong path fails at once (as report).
  std::vector<std::unique_ptr<LineReader>> readers;
  bool opened = true;
  for (const std::string& f : files) {
    std::string error;
    readers.push_back(LineReader::open(f, &error));
    if (!readers.back()) {
      err("account: " + error);
      opened = false;
    }
  }
  if (!opened) return 1;
  return export_readers(options, readers, out, err);
}

int run_export_text(const ExportOptions& options, std::string records, const std::string& name,
                    std::string* out, const MessageSink& err) {
  std::vector<std::unique_ptr<LineReader>> readers;
  readers.push_back(LineReader::from_text(std::move(records), name));
  out->clear();
  return export_readers(
      options, readers, [out](std::string_view bytes) { out->append(bytes); }, err);
}

}  // namespace account
