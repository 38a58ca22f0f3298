#include "run_options.h"

#include <fmt/format.h>

#include "comma_list.h"
#include "metric.h"
#include "option_values.h"
#include "record_writer.h"

namespace account {

namespace po = boost::program_options;

const char kRunHelp[] =
    "\n"
    "Exit status: the command's (128+N when signal N ended it, or when account run\n"
    "got SIGINT, SIGTERM or SIGHUP and passed it on); 125 when account run could not\n"
    "do its part (--prepare failed, or records were lost: the output filled up);\n"
    "126 or 127 when the command could not be run; 1 for a bad option (nothing run).\n"
    "See docs/run.md.\n";

po::options_description run_options(RunOptions& o) {
  po::options_description d("account run [options] -- COMMAND...");
  d.add_options()("help,h", "this help")("test", po::value(&o.test),
                                         "test label copied into every record (ACCOUNT_TEST)")(
      "op", po::value(&o.op), "operation label copied into every record (ACCOUNT_OP)")(
      "output,o", po::value(&o.output),
      "append records to FILE (default: a temporary file, removed after the summary)")(
      "interval", po::value(&o.interval_text)->default_value(std::to_string(kDefaultIntervalMs)),
      "sampling interval in milliseconds, 0-1000 (0: no per-process sampler); a tick may "
      "come up to one interval, at most 5 ms, late")(
      "backtrace-min", po::value(&o.backtrace_min),
      "capture a backtrace for each allocation of at least SIZE (e.g. 10M)")(
      "backtrace-sample", po::value(&o.backtrace_sample),
      "capture about one allocation every SIZE bytes allocated (e.g. 512K), whatever its "
      "size: a whole-heap profile whose counts and bytes are estimates")(
      "leaks", po::bool_switch(&o.leaks),
      "follow captured blocks to their free: the stacks of the heap at each process's end "
      "and of temporaries (account report --backtraces --leaks); without --backtrace-min, "
      "every block")("timeline", po::bool_switch(&o.timeline),
                     "keep the sampled time series in the records")(
      "budget", po::value(&o.budget_text),
      "FIGURE=SIZE,...: exit 3 when a figure of the run (size, resident, anon, heap, copied, "
      "malloc, as the report computes it) is over its SIZE (e.g. malloc=10M), 5 when one is "
      "unknown; a failed command keeps its own status")(
      "timeout", po::value(&o.timeout_text),
      "kill the process tree after SEC seconds (0.001-1000000) and mark the run aborted")(
      "kill-after", po::value(&o.kill_after_text)->default_value("5"),
      "after SIGINT, SIGTERM or SIGHUP, passed on to the tree: SIGKILL what is left of it "
      "after SEC seconds (0-3600)")("repeat", po::value(&o.repeat_text)->default_value("1"),
                                    "run COMMAND N times (1-1000000), one tree record each")(
      "prepare", po::value(&o.prepare), "run `sh -c CMD` before each repetition, unaccounted")(
      "stop-signal", po::value(&o.stop_signal_texts)->composing(),
      "SIG (TERM, SIGHUP, 15; repeatable) is the command's normal stop: ended by it, the run "
      "reads as stopped (counted like exit 0), not failed")("quiet,q", po::bool_switch(&o.quiet),
                                                            "no summary line on stderr")(
      "cgroup", po::value(&o.cgroup_text)->default_value("auto"),
      "auto, off or require: put the command in a cgroup of its own for the kernel's exact tree "
      "peak (cgroup_memory_peak_bytes, pids_peak; docs/cgroup.md). auto: where it can (root, "
      "or a delegated subtree), else one line; require: else run nothing (exit 125)")(
      "store", po::value(&o.store),
      "keep this run's records in the results store (an SQLite file or postgresql://...; "
      "default with --commit: $ACCOUNT_STORE, else .account/results.sqlite at the repository's "
      "top)")("commit", po::value(&o.commit),
              "the revision the records are stored at (with --store: default HEAD)")(
      "repo", po::value(&o.repo), "the git repository of --commit (default: .)")(
      "branch", po::value(&o.branch), "the branch stored with the records");
  return d;
}

void split_command(const Args& args, Args* options, Args* command) {
  static const char* const kTakesValue[] = {"--test",
                                            "--op",
                                            "-o",
                                            "--output",
                                            "--interval",
                                            "--timeout",
                                            "--repeat",
                                            "--prepare",
                                            "--kill-after",
                                            "--backtrace-min",
                                            "--backtrace-sample",
                                            "--stop-signal",
                                            "--store",
                                            "--commit",
                                            "--repo",
                                            "--branch",
                                            "--budget",
                                            "--cgroup"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      command->assign(args.begin() + long(i) + 1, args.end());
      return;
    }
    if (a.empty() || a[0] != '-') {
      command->assign(args.begin() + long(i), args.end());
      return;
    }
    options->push_back(a);
    for (const char* v : kTakesValue)
      if (a == v && i + 1 < args.size()) options->push_back(args[++i]);
  }
}

namespace {

std::vector<Budget> budgets_option(const std::string& text) {
  std::vector<Budget> budgets;
  for (std::string_view item : comma_list(text)) {
    size_t eq = item.find('=');
    std::optional<Metric> m = parse_metric(item.substr(0, eq));
    if (eq == std::string_view::npos || !m || figure(*m).unit != Unit::kBytes)
      throw UsageError{fmt::format("run: --budget {}: not FIGURE=SIZE with FIGURE one of {}",
                                   std::string(item), budget_figure_names())};
    budgets.push_back({*m, size_option("run", "--budget", std::string(item.substr(eq + 1)))});
  }
  return budgets;
}

}  // namespace

void check_values(RunOptions& o, const po::variables_map& vm) {
  if (o.command.empty())
    throw UsageError{"run: no command given (account run [options] -- COMMAND...)"};
  o.interval_ms = unsigned(count_option("run", "--interval", o.interval_text, 0, 1000, "ms"));
  o.repeat = unsigned(count_option("run", "--repeat", o.repeat_text, 1, 1000000));
  o.stop_signals = signals_option("run", "--stop-signal", o.stop_signal_texts);
  if (vm.count("timeout"))
    o.timeout_s = seconds_option("run", "--timeout", o.timeout_text, 0.001, 1e6);
  o.kill_after_s = seconds_option("run", "--kill-after", o.kill_after_text, 0, 3600);
  if (o.cgroup_text == "auto")
    o.cgroup = CgroupMode::kAuto;
  else if (o.cgroup_text == "off")
    o.cgroup = CgroupMode::kOff;
  else if (o.cgroup_text == "require")
    o.cgroup = CgroupMode::kRequire;
  else
    throw UsageError{fmt::format("run: --cgroup {}: not one of auto, off, require", o.cgroup_text)};
  if (vm.count("backtrace-min")) size_option("run", "--backtrace-min", o.backtrace_min);
  if (vm.count("backtrace-sample")) size_option("run", "--backtrace-sample", o.backtrace_sample);
  if (!o.backtrace_sample.empty() && (!o.backtrace_min.empty() || o.leaks))
    throw UsageError{
        "run: --backtrace-sample takes no --backtrace-min or --leaks (a sampled "
        "block stands for others: its free says nothing of theirs)"};
  if (vm.count("budget")) o.budgets = budgets_option(o.budget_text);
  if (vm.count("prepare") && o.prepare.empty())
    throw UsageError{"run: --prepare needs a command for sh -c"};
  // The shim keeps a label in kLabelCapacity bytes: a longer one would be cut
  // in the process records and not in the tree record (two rows).
  for (const auto& [option, label] : {std::pair{"--test", &o.test}, {"--op", &o.op}})
    if (label->size() >= kLabelCapacity)
      throw UsageError{fmt::format("run: {} is {} bytes long; a label holds at most {}", option,
                                   label->size(), kLabelCapacity - 1)};
  // The shim would expand % in each process's output name (%p: its pid) while
  // the tree record goes to the name as given: one run's records in several files.
  if (o.output.find('%') != std::string::npos)
    throw UsageError{fmt::format(
        "run: -o {}: '%' is not allowed in account run's output (its records must share one "
        "file); ACCOUNT_OUTPUT=...%p is the shim's own",
        o.output)};
}

}  // namespace account
