// account bisect: the first commit worse than a good one beyond --fail-on,
// each candidate built and measured in a worktree of its own
// (history/bisect.h).
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <boost/program_options.hpp>
#include <csignal>
#include <iostream>

#include "bisect.h"
#include "commands.h"
#include "option_values.h"
#include "store.h"

namespace account {

namespace po = boost::program_options;

namespace {

std::atomic<bool> interrupted{false};

void on_signal(int) {
  interrupted = true;
}

}  // namespace

int command_bisect(const Args& all) {
  BisectOptions o;
  std::string location, fail_on, repeat_max = "10";
  // Everything after "--" is the command.
  auto dashes = std::find(all.begin(), all.end(), "--");
  Args args(all.begin(), dashes);
  if (dashes != all.end()) o.command.assign(dashes + 1, all.end());
  po::options_description d(
      "account bisect --good REV --bad REV --fail-on METRIC=PCT [options] -- COMMAND...");
  // clang-format off
  d.add_options()
      ("help,h", "this help")
      ("store", po::value(&location), "the store every run goes to (default: $ACCOUNT_STORE, "
       "else .account/results.sqlite at the repository's top)")
      ("repo", po::value(&o.repo), "the git repository (default: .)")
      ("good", po::value(&o.good), "a commit whose figures are good")
      ("bad", po::value(&o.bad), "a later commit on its first-parent history whose figures are "
       "worse")
      ("fail-on", po::value(&fail_on), "METRIC=PCT,...: a commit is bad when it is worse than "
       "the good one by more than PCT percent (compare's gate)")
      ("build", po::value(&o.build), "a shell command that builds a checked-out commit (run in "
       "the worktree)")
      ("prepare", po::value(&o.prepare), "a shell command run in the worktree before --build")
      ("repeat-max", po::value(&repeat_max), "runs a commit at most while its verdict is "
       "undecided (default 10)")
      ("test", po::value(&o.test), "the test label runs are stored with (default: bisect)")
      ("op", po::value(&o.op), "the operation label (default: the command line)");
  // clang-format on
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(d).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << d
              << "\nChecks out candidates in a git worktree of its own (your checkout is never"
                 "\ntouched, also when interrupted), runs --prepare and --build, runs COMMAND"
                 "\nunder `account run` (2 runs, more up to --repeat-max until the gate decides),"
                 "\nstores every run and reuses stored ones. Binary search over the first-parent"
                 "\ncommits after --good up to --bad: at most log2(N) + 2 builds."
                 "\nExit status: 0 found, 1 bad usage or a failed build, 5 undecided.\n";
    return 0;
  }
  if (o.good.empty() || o.bad.empty()) throw UsageError{"bisect: needs --good and --bad"};
  if (o.command.empty()) throw UsageError{"bisect: needs -- COMMAND..."};
  if (fail_on.empty()) throw UsageError{"bisect: needs --fail-on METRIC=PCT"};
  std::string error;
  std::optional<std::vector<Gate>> gates = parse_gates(fail_on, &error);
  if (!gates) throw UsageError{"bisect: " + error};
  o.fail_on = *gates;
  o.repeat_max = count_option("bisect", "--repeat-max", repeat_max, 2, 1000);
  if (!vm.count("op")) {
    o.op.clear();
    for (const std::string& a : o.command) o.op += (o.op.empty() ? "" : " ") + a;
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) throw UsageError{"bisect: cannot find its own executable"};
  o.account.assign(self, size_t(n));
  std::optional<std::string> where = store_location(location, o.repo, &error);
  if (!where) throw UsageError{"bisect: " + error};
  std::unique_ptr<Store> store = open_store(*where, &error);
  if (!store) throw UsageError{"bisect: " + error};
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  o.interrupted = &interrupted;
  return run_bisect(
      *store, o, [](std::string_view s) { std::cout << s << std::flush; }, print_message);
}

}  // namespace account
