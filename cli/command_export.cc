// account export: records in an open format (Perfetto/Chrome trace, pprof,
// folded stacks, OpenMetrics) for the viewers and pipelines users already have.
#include <fmt/format.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "commands.h"
#include "commands/export.h"
#include "file_options.h"
#include "output_file.h"

namespace account {

namespace po = boost::program_options;

namespace {

constexpr const char* kExportHelp =
    "\n"
    "Reads JSON Lines records as `account report` does (FILE '-' or none: standard input;\n"
    "bad lines are named as FILE:LINE on stderr and skipped, exit status 2) and writes:\n"
    "  chrome-trace  Trace Event Format JSON: processes and memory over time\n"
    "                (ui.perfetto.dev, chrome://tracing)\n"
    "  pprof         gzipped profile of the large-allocation backtraces (go tool pprof)\n"
    "  folded        collapsed stacks of those backtraces, bytes a stack\n"
    "                (flamegraph.pl, inferno-flamegraph, speedscope)\n"
    "  folded-leaks, folded-temporary\n"
    "                the same, bytes still live at each process's end, or freed as\n"
    "                temporaries (records made with account run --leaks)\n"
    "  openmetrics   the report's figures as OpenMetrics text (Prometheus, node_exporter)\n"
    "pprof and folded need records made with --backtrace-min; chrome-trace shows memory\n"
    "curves for records made with --timeline. See docs/export.md.\n";

}  // namespace

int command_export(const Args& args) {
  ExportOptions o;
  std::string format, output;
  po::options_description d("account export --format FORMAT [-o FILE] [FILES...]");
  // clang-format off
  d.add_options()
      ("help,h", "this help")
      ("format,f", po::value(&format),
       "chrome-trace, pprof, folded, folded-leaks, folded-temporary or openmetrics")
      ("output,o", po::value(&output), "write to FILE (default: standard output)")
      ("strict", po::bool_switch(&o.strict), "stop at the first bad line (exit status 1)");
  // clang-format on
  po::variables_map vm = parse_with_files(args, d, &o.files);
  if (vm.count("help")) {
    std::cout << d << kExportHelp;
    return 0;
  }
  std::optional<ExportFormat> f = parse_export_format(format);
  if (!f)
    throw UsageError{
        format.empty()
            ? fmt::format("export: --format is required: {}", export_format_names())
            : fmt::format("export: unknown format '{}': use {}", format, export_format_names())};
  o.format = *f;
  if (export_format_is_binary(o.format) && output.empty() && isatty(STDOUT_FILENO))
    throw UsageError{fmt::format(
        "export: {} output is binary and standard output is a terminal: use -o FILE or a "
        "redirect",
        format)};
  OutputFile file("export", output, read_files(o.files));
  std::unique_ptr<Symbolizer> symbolizer = make_addr2line_symbolizer();
  o.symbolizer = symbolizer.get();
  // Streamed into the temporary file; renamed into place only when whole.
  int status = run_export(
      o, [&file](std::string_view bytes) { file.append(bytes); }, print_message);
  if (status != 1) file.commit();
  return status;
}

}  // namespace account
