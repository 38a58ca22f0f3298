// account compare: the same rows for several record files, with each file's
// change against the first in percent.
#include <fmt/format.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "comma_list.h"
#include "commands.h"
#include "commands/compare.h"
#include "file_options.h"
#include "output_file.h"
#include "report_columns.h"
#include "run_end.h"

namespace account {

namespace po = boost::program_options;

int command_compare(const Args& args) {
  CompareOptions o;
  std::string format = "table", names, columns, fail_on, sort, output;
  po::options_description d("account compare A.jsonl B.jsonl [MORE.jsonl...] [options]");
  // clang-format off
  d.add_options()
      ("help,h", "this help")
      ("format,f", po::value(&format), "table (default), csv, json, markdown or html (a page "
       "with the table and each build's charts)")
      ("output,o", po::value(&output), "write to FILE (default: standard output)")
      ("names", po::value(&names), "labels for the files, comma-separated (default: file names)")
      ("columns", po::value(&columns),
       columns_help().c_str())
      ("fail-on", po::value(&fail_on),
       ("METRIC=PCT,...: exit with status 3 when a later file is significantly worse than the "
        "first by more than PCT percent in METRIC (" +
        metric_name_list() +
        "), e.g. cpu=5%,resident=2%,malloc=0.5%; exit with status 5 when a gated figure "
        "cannot be judged (an empty or missing file, an operation in one file only, no "
        "successful run, too few runs for a verdict), one line each saying why and what to do")
           .c_str())
      ("allow-unjudged", po::bool_switch(&o.allow_unjudged),
       "with --fail-on: what cannot be judged passes (the lines are still printed)")
      ("sort", po::value(&sort), "order each test's operations by KEY (a METRIC as for "
       "--fail-on), largest first (the largest of the files' figures), and the tests by their "
       "largest operation")
      ("include-failed", po::bool_switch(&o.include_failed),
       (std::string("count failed runs (") + kFailedRunsAre + ") in the figures").c_str())
      ("strict", po::bool_switch(&o.strict), "stop at the first bad line (exit status 1)")
      ("backtraces", po::bool_switch(&o.backtraces),
       "instead of the table: the call stacks whose allocated bytes a run grew or shrank "
       "(records made with --backtrace-min), text only");
  // clang-format on
  po::variables_map vm = parse_with_files(args, d, &o.files);
  if (vm.count("help")) {
    std::cout
        << d
        << "\nFor every (test, operation) in any file: one row per file, then the change of"
           "\neach later file against the first: the change of the medians in percent (N/A"
           "\nwhere the first is 0), marked * beyond noise or ~ within noise, and under it"
           "\nthe 95% interval of the change (Hodges-Lehmann of the ratio, on the log scale, so"
           "\nnever below -100%; \"exact\" where no run varies)."
           "\nA verdict needs 4 runs a side (fewer: the Note says so). Failed runs are left"
           "\nout (exit status 4; --include-failed); no change is computed where a side has"
           "\nno successful run. --fail-on fails a figure flagged * that is over its limit"
           "\nand stays significant across every gated figure (Holm, 5% family-wise): the"
           "\nmore figures gated, the more runs a side it needs (6 for 20, 7 for 90)."
           "\nExit status, the first that applies: 1 (bad usage or unreadable input),"
           "\n3 (--fail-on: a regression over its limit), 5 (--fail-on: something gated"
           "\nnot judged; --allow-unjudged: 0), 2 (lines skipped), 4 (failed runs seen), 0.\n";
    return 0;
  }
  o.format = format_option(format);
  if (vm.count("columns")) {
    std::string error;
    std::optional<ExtraColumns> extra = parse_columns(columns, &error);
    if (!extra) throw UsageError{"compare: " + error};
    o.columns = *extra;
  }
  if (vm.count("fail-on")) {
    std::string error;
    std::optional<std::vector<Gate>> gates = parse_gates(fail_on, &error);
    if (!gates) throw UsageError{"compare: " + error};
    o.fail_on = *gates;
  }
  if (vm.count("sort")) {
    o.sort = parse_metric(sort);
    if (!o.sort) throw UsageError{"compare: --sort: " + unknown_metric(sort)};
  }
  if (o.backtraces && (o.format != Format::kTable || vm.count("columns") || vm.count("sort")))
    throw UsageError{
        "compare: --backtraces is text only and takes no --format, --columns or --sort"};
  if (o.files.size() < 2)
    throw UsageError{"compare: needs at least two record files (try account compare --help)"};
  if (!names.empty()) {
    for (std::string_view name : comma_list(names)) o.names.emplace_back(name);
    if (o.names.size() != o.files.size())
      throw UsageError{fmt::format("compare: --names gives {} labels for {} files", o.names.size(),
                                   o.files.size())};
  }
  OutputFile file("compare", output, read_files(o.files));
  std::unique_ptr<Symbolizer> symbolizer;
  if (o.format == Format::kHtml || o.backtraces)
    o.symbolizer = (symbolizer = make_addr2line_symbolizer()).get();
  // Streamed into the temporary file (a page section by section); renamed
  // into place only when whole.
  int status = run_compare(
      o, [&file](std::string_view bytes) { file.append(bytes); }, print_message);
  if (status != 1) file.commit();
  return status;
}

}  // namespace account
