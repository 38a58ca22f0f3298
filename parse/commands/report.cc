#include "commands/report.h"

#include <optional>

#include "commands/read_inputs.h"
#include "html_report.h"
#include "report_tables.h"

namespace account {

int run_report(const ReportOptions& options, const ByteSink& out, const MessageSink& err) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  std::vector<Input> inputs;
  if (!open_all(files, &inputs, err)) return 1;
  bool page = (options.format == Format::kHtml || !options.chart.empty()) && !options.by_process &&
              !options.by_host && !options.percentiles;
  Aggregator aggregator(options.by_process || page);
  for (Input& in : inputs) in.into = &aggregator;
  std::optional<TimelineSpool> spool;
  int status = read_inputs(inputs, options.strict, err, page ? &spool.emplace() : nullptr);
  if (status == 1) return 1;
  std::vector<Operation> ops = aggregator.finish();
  note_unlabelled({&ops}, err);
  status = final_status(status, any_failed(ops));
  if (page) {
    int drawn =
        render_pictures(options, files, std::move(ops), out, err, spool ? &*spool : nullptr);
    return drawn ? drawn : status;
  }
  Table table = options.by_process ? process_table(ops, options.columns)
                : options.by_host  ? host_table(ops, options.columns, options.include_failed)
                : options.percentiles
                    ? percentile_table(ops, *options.percentiles, options.include_failed)
                    : operation_table(ops, options.columns, options.include_failed);
  if (options.sort) sort_rows(table, *options.sort);
  out(make_renderer(options.format)->render(table));
  return status;
}

int run_report(const ReportOptions& options, std::string* out, const MessageSink& err) {
  out->clear();
  return run_report(
      options, [out](std::string_view bytes) { out->append(bytes); }, err);
}

}  // namespace account
