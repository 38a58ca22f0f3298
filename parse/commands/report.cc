#include "commands/report.h"

#include <fmt/format.h>

#include <optional>

#include "commands/read_inputs.h"
#include "formats/html_report.h"
#include "formats/registry.h"
#include "report_tables.h"

namespace account {

namespace {

// `--format svg --chart NAME --test T --op O`: that one chart of the page.
// Returns 1 (a line on err) when the chart's operation is not in the page's.
int draw_chart(const ReportOptions& options, HtmlReportInput page, const ByteSink& out,
               const MessageSink& err) {
  std::optional<ChartKind> kind = parse_chart_kind(options.chart);
  size_t index = 0;
  while (index < page.ops.size() &&
         (page.ops[index].test != options.chart_test || page.ops[index].op != options.chart_op))
    ++index;
  if (!kind || index == page.ops.size()) {
    std::string known;
    for (const Operation& o : page.ops)
      known += fmt::format("{}'{}/{}'", known.empty() ? "" : ", ", o.test, o.op);
    err(kind ? fmt::format("account: report: no operation '{}/{}' in the records (there: {})",
                           options.chart_test, options.chart_op, known)
             : fmt::format("account: report: unknown chart '{}' (known: memory, processes, "
                           "allocations)",
                           options.chart));
    return 1;
  }
  std::string note;
  out(chart_svg(page, index, *kind, &note));
  if (!note.empty())
    err("account: report: " + options.chart_test + "/" + options.chart_op + ": " + note);
  return 0;
}

}  // namespace

int run_report(const ReportOptions& options, const ByteSink& out, const MessageSink& err) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  std::vector<Input> inputs;
  if (!open_all(files, &inputs, err)) return 1;
  bool operation_table_only = !options.by_process && !options.by_host && !options.percentiles;
  // A page draws the operation table's charts: processes and timelines kept.
  bool page =
      (format_entry(options.format).draws || !options.chart.empty()) && operation_table_only;
  Aggregator aggregator(page                 ? Kept::kProcessRecords
                        : options.by_process ? Kept::kProcessRows
                                             : Kept::kRuns);
  for (Input& in : inputs) in.into = &aggregator;
  std::optional<TimelineSpool> spool;
  int status = read_inputs(inputs, options.strict, err, page ? &spool.emplace() : nullptr);
  if (status == 1) return 1;
  std::vector<Operation> ops = aggregator.finish();
  note_unlabelled({&ops}, err);
  status = final_status(status, any_failed(ops));
  FormatInput input;
  input.table = options.by_process ? process_table(ops, options.columns)
                : options.by_host  ? host_table(ops, options.columns, options.include_failed)
                : options.percentiles
                    ? percentile_table(ops, *options.percentiles, options.include_failed)
                    : operation_table(ops, options.columns, options.include_failed);
  if (options.sort) sort_rows(input.table, *options.sort);
  input.table_only = !operation_table_only;
  if (page) {
    // The icicles: the backtraces of every file read again and symbolized.
    std::vector<std::string> paths;
    for (const std::string& f : files)
      if (f != "-") paths.push_back(f);
    input.backtraces.push_back(read_backtraces(paths));
    if (!input.backtraces.back().empty() && options.symbolizer)
      input.symbols.push_back(symbolize(input.backtraces.back(), *options.symbolizer));
    input.names = files;
    input.inputs.push_back(std::move(ops));
    input.spool = spool ? &*spool : nullptr;
  }
  if (!options.chart.empty()) {
    int drawn = draw_chart(options, html_report_input(std::move(input)), out, err);
    return drawn ? drawn : status;
  }
  make_format(options.format, Command::kReport)->write(std::move(input), out);
  return status;
}

int run_report(const ReportOptions& options, std::string* out, const MessageSink& err) {
  out->clear();
  return run_report(
      options, [out](std::string_view bytes) { out->append(bytes); }, err);
}

}  // namespace account
