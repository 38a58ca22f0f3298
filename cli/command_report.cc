// account report: the per-operation table (or CSV, JSON, Markdown) from records.
#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cstdio>
#include <iostream>

#include "backtrace_report.h"
#include "commands.h"
#include "commands/report.h"
#include "file_options.h"
#include "formats/html_report.h"
#include "formats/registry.h"
#include "output_file.h"
#include "report_columns.h"
#include "run_end.h"

namespace account {

namespace po = boost::program_options;

namespace {

constexpr const char* kReportHelp =
    "\n"
    "Reads JSON Lines records (FILE '-' or none: standard input) and prints one row per\n"
    "(test, operation): CPU seconds, peak size and resident size, MiB copied and MiB\n"
    "malloc'ed; the median over runs when an operation ran more than once.\n"
    "Bad lines are named as FILE:LINE on stderr and skipped (exit status 2).\n"
    "Failed runs are marked and left out of the figures (exit status 4; --include-failed).\n";

// A word after --percentiles that is no existing file and could be a metric
// name (letters, digits and '_' only) is taken as one: `--percentiles rss`
// is an unknown metric, not a file that cannot be opened.
bool meant_as_metric(const std::string& word) {
  struct stat st;
  if (word.empty() || stat(word.c_str(), &st) == 0) return false;
  return std::all_of(word.begin(), word.end(),
                     [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
}

// `--percentiles [KEY]`: KEY as the next word, or wall when the next word is not a KEY.
Args join_percentiles_key(const Args& args) {
  Args out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--percentiles") {
      // Boost would take any next word as the value: only a KEY is one.
      if (i + 1 < args.size() && (parse_metric(args[i + 1]) || meant_as_metric(args[i + 1])))
        out.push_back("--percentiles=" + args[++i]);
      else
        out.push_back("--percentiles=wall");
      continue;
    }
    out.push_back(args[i]);
  }
  return out;
}

}  // namespace

Format format_option(const std::string& name) {
  std::optional<Format> f = parse_format(name);
  if (!f)
    throw UsageError{
        fmt::format("unknown format '{}': use table, csv, json, markdown or html", name)};
  return *f;
}

int command_report(const Args& args) {
  ReportOptions o;
  std::string format = "table", by, percentiles, columns, sort, output;
  bool backtraces = false, leaks = false, temporary = false;
  po::options_description d("account report [FILES...] [options]");
  // clang-format off
  d.add_options()
      ("help,h", "this help")
      ("format,f", po::value(&format), "table (default), csv, json, markdown, html (a page "
       "with the table and charts) or svg (one chart: --chart, --test, --op)")
      ("output,o", po::value(&output), "write to FILE (default: standard output)")
      ("chart", po::value(&o.chart), "with --format svg: memory, processes or allocations")
      ("test", po::value(&o.chart_test), "with --format svg: the test of the chart")
      ("op", po::value(&o.chart_op), "with --format svg: the operation of the chart")
      ("by", po::value(&by), "process or host: one row per process image, or one row per host "
       "(the records' host), under each operation")
      ("percentiles", po::value(&percentiles)->implicit_value("wall"),
       "distribution over runs of KEY: wall (default), cpu, size, resident, copied, malloc")
      ("columns", po::value(&columns),
       columns_help().c_str())
      ("sort", po::value(&sort),
       ("order each test's rows by KEY, largest first, and the tests by their largest row: " +
        metric_name_list())
           .c_str())
      ("include-failed", po::bool_switch(&o.include_failed),
       (std::string("count failed runs (") + kFailedRunsAre + ") in the figures").c_str())
      ("strict", po::bool_switch(&o.strict), "stop at the first bad line (exit status 1)")
      ("backtraces", po::bool_switch(&backtraces),
       "the large-allocation call stacks (ACCOUNT_BACKTRACE_MIN) per operation and process, "
       "symbolized with addr2line")
      ("leaks", po::bool_switch(&leaks),
       "with --backtraces: the stacks of the blocks still live at each process's end "
       "(records made with account run --leaks)")
      ("temporary", po::bool_switch(&temporary),
       "with --backtraces: the stacks of temporary allocations (account run --leaks)");
  // clang-format on
  po::variables_map vm = parse_with_files(join_percentiles_key(args), d, &o.files);
  if (vm.count("help")) {
    std::cout << d << kReportHelp;
    return 0;
  }
  if (format == "svg") {
    if (o.chart.empty() || !vm.count("op"))
      throw UsageError{
          "report: --format svg draws one chart: give --chart memory|processes|allocations, "
          "--test T and --op O"};
    if (!parse_chart_kind(o.chart))
      throw UsageError{
          fmt::format("report: --chart '{}': use memory, processes or allocations", o.chart)};
    format = "html";
  } else if (!o.chart.empty() || vm.count("test") || vm.count("op")) {
    throw UsageError{"report: --chart, --test and --op go with --format svg"};
  }
  o.format = format_option(format);
  OutputFile file("report", output, read_files(o.files));
  if ((leaks || temporary) && !backtraces)
    throw UsageError{"report: --leaks and --temporary go with --backtraces"};
  if (leaks && temporary) throw UsageError{"report: --leaks or --temporary, not both"};
  if (backtraces) {
    if (o.format != Format::kTable || !by.empty() || vm.count("percentiles") || vm.count("columns"))
      throw UsageError{
          "report: --backtraces is text only and takes no --format, --by, "
          "--percentiles or --columns"};
    std::string out;
    auto symbolizer = make_addr2line_symbolizer();
    StackView view = leaks       ? StackView::kLeaks
                     : temporary ? StackView::kTemporary
                                 : StackView::kAllocations;
    int status = run_backtrace_report(o.files, o.strict, *symbolizer, &out, print_message, view);
    file.write(out);
    return status;
  }
  if (vm.count("columns")) {
    std::string error;
    std::optional<ExtraColumns> extra = parse_columns(columns, &error);
    if (!extra) throw UsageError{"report: " + error};
    o.columns = *extra;
  }
  if (!by.empty()) {
    if (by != "process" && by != "host")
      throw UsageError{fmt::format("report: --by '{}': use process or host", by)};
    o.by_process = by == "process";
    o.by_host = by == "host";
  }
  if (vm.count("percentiles")) {
    o.percentiles = parse_metric(percentiles);
    if (!o.percentiles) throw UsageError{"report: --percentiles: " + unknown_metric(percentiles)};
    if (!by.empty())
      throw UsageError{fmt::format("report: --by {} and --percentiles do not combine", by)};
    if (vm.count("columns")) throw UsageError{"report: --columns and --percentiles do not combine"};
  }
  if (vm.count("sort")) {
    o.sort = parse_metric(sort);
    if (!o.sort) throw UsageError{"report: --sort: " + unknown_metric(sort)};
    if (!by.empty() || o.percentiles)
      throw UsageError{"report: --sort orders the operation table: not with --by or --percentiles"};
  }
  std::unique_ptr<Symbolizer> symbolizer;
  if (o.format == Format::kHtml) {
    symbolizer = make_addr2line_symbolizer();
    o.symbolizer = symbolizer.get();
  }
  // Streamed into the temporary file (a page section by section); renamed
  // into place only when whole.
  int status = run_report(
      o, [&file](std::string_view bytes) { file.append(bytes); }, print_message);
  if (status != 1) file.commit();
  return status;
}

}  // namespace account
