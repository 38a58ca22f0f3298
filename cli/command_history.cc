// account history: each operation's figures along the branch's first-parent
// history, read from the results store, with the change points found in them
// (history/history_report.h); --check judges the newest commit.
#include <fmt/format.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <iostream>

#include "comma_list.h"
#include "commands.h"
#include "file_options.h"
#include "history_report.h"
#include "output_file.h"
#include "store.h"

namespace account {

namespace po = boost::program_options;

int command_history(const Args& args) {
  HistoryOptions o;
  std::string location, format = "table", metrics, fail_on, output;
  po::options_description d("account history [options]");
  // clang-format off
  d.add_options()
      ("help,h", "this help")
      ("store", po::value(&location), "the store: an SQLite file, or postgresql://... "
       "(default: $ACCOUNT_STORE, else .account/results.sqlite at the repository's top)")
      ("repo", po::value(&o.range.repo), "the git repository (default: .)")
      ("rev", po::value(&o.range.rev), "the branch or commit whose first-parent history is "
       "shown (default: HEAD)")
      ("since", po::value(&o.range.since), "the oldest commit shown")
      ("test", po::value(&o.range.test), "only this test")
      ("op", po::value(&o.range.op), "only this operation")
      ("host", po::value(&o.range.host), "only the runs measured on this machine (the "
       "records' host)")
      ("metric", po::value(&metrics),
       ("the figures shown, a comma list of " + metric_name_list() +
        " (default: cpu,size,resident,copied,malloc)")
           .c_str())
      ("format,f", po::value(&format), "table (default; also: text), csv, json, markdown, html (a page with the "
       "tables and the picture) or svg (the picture: runs, medians, segments, change points)")
      ("output,o", po::value(&output), "write to FILE (default: standard output)")
      ("check", po::bool_switch(&o.check), "judge the newest commit with --fail-on")
      ("fail-on", po::value(&fail_on), "METRIC=PCT,...: with --check, exit with status 3 when "
       "the newest commit begins or belongs to a segment worse than the one before by more "
       "than PCT percent; 5 when it cannot be judged (no runs at the newest commit, too few "
       "runs a side)")
      ("allow-unjudged", po::bool_switch(&o.allow_unjudged),
       "with --check: what cannot be judged passes (the lines are still printed)");
  // clang-format on
  std::vector<std::string> extra;
  po::variables_map vm = parse_with_files(args, d, &extra);
  if (!extra.empty())
    throw UsageError{fmt::format("history: unexpected argument '{}' (try --help)", extra[0])};
  if (vm.count("help")) {
    std::cout
        << d
        << "\nOne row per operation and commit (the medians of its runs), commits in the"
           "\nfirst-parent order of --rev, then the change points: the first commit after"
           "\neach change, the medians of the segments before and after, the change with"
           "\nits 95% interval, and the p-value. Figures no run varies in (byte and call"
           "\ncounts) are compared exactly: every commit that changes them is a change"
           "\npoint. The others go through E-Divisive with a permutation test (docs/history.md)."
           "\nExit status: 0, 1 (bad usage, no repository, no store), with --check 3 (a"
           "\nregression over its limit) or 5 (something gated not judged).\n";
    return 0;
  }
  if (format == "text") format = "table";
  o.svg = format == "svg";
  o.format = o.svg ? Format::kHtml : format_option(format);
  if (vm.count("metric")) {
    o.metrics.clear();
    for (std::string_view name : comma_list(metrics)) {
      std::optional<Metric> m = parse_metric(name);
      if (!m) throw UsageError{"history: --metric: " + unknown_metric(name)};
      o.metrics.push_back(*m);
    }
  }
  if (o.check && !vm.count("fail-on")) throw UsageError{"history: --check needs --fail-on"};
  if (vm.count("fail-on")) {
    if (!o.check) throw UsageError{"history: --fail-on needs --check"};
    std::string error;
    std::optional<std::vector<Gate>> gates = parse_gates(fail_on, &error);
    if (!gates) throw UsageError{"history: " + error};
    o.fail_on = *gates;
  }
  std::string error;
  std::optional<std::string> where = store_location(location, o.range.repo, &error);
  if (!where) throw UsageError{"history: " + error};
  if (where->find("://") == std::string::npos && access(where->c_str(), F_OK) != 0)
    throw UsageError{fmt::format("history: no store at {} (account store add makes one)", *where)};
  std::unique_ptr<Store> store = open_store(*where, &error);
  if (!store) throw UsageError{"history: " + error};
  OutputFile file("history", output, {});
  std::string text;
  int status = run_history(*store, o, &text, print_message);
  if (status == 1) return 1;
  file.append(text);
  file.commit();
  return status;
}

}  // namespace account
