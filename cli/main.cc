// account: run a command under the shim, report and compare the records.
#include <fmt/format.h>

#include <boost/program_options/errors.hpp>
#include <cstdio>
#include <exception>

#include "account_commit.h"
#include "commands.h"
#include "run_stages.h"
#include "text_escape.h"

namespace {

constexpr const char* kUsage =
    "usage: account <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [options] -- COMMAND...   run COMMAND with the shim, sample its process tree,\n"
    "                                append records, return COMMAND's exit status\n"
    "  report [FILES...]             the per-operation table (also csv, json, markdown)\n"
    "  compare A.jsonl B.jsonl       the same rows for both runs, with B's change in percent\n"
    "  watch --pid PID               sample a running process until it ends\n"
    "  export --format FORMAT        chrome-trace, pprof, folded or openmetrics (docs/export.md)\n"
    "  store add --commit REV FILE   keep records with their commit in the results store\n"
    "  history [--check]             figures by commit from the store, with change points\n"
    "  bisect --good A --bad B       the first commit worse than A beyond --fail-on\n"
    "\n"
    "`account COMMAND --help` describes each command's options; `account --version`\n"
    "prints the version and the commit it was built from.\n"
    "Environment: ACCOUNT_LIB overrides where libaccount.so is found.\n";

int dispatch(const account::Args& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? 1 : 0;
  }
  if (args[0] == "--version") {
    fmt::print("account {} ({})\n", ACCOUNT_VERSION, ACCOUNT_COMMIT);
    return 0;
  }
  account::Args rest(args.begin() + 1, args.end());
  if (args[0] == "run") return account::command_run(rest);
  if (args[0] == "report") return account::command_report(rest);
  if (args[0] == "compare") return account::command_compare(rest);
  if (args[0] == "watch") return account::command_watch(rest);
  if (args[0] == "export") return account::command_export(rest);
  if (args[0] == "store") return account::command_store(rest);
  if (args[0] == "history") return account::command_history(rest);
  if (args[0] == "bisect") return account::command_bisect(rest);
  throw account::UsageError{fmt::format("unknown command '{}' (try account --help)", args[0])};
}

}  // namespace

void account::print_message(const std::string& line) {
  fmt::print(stderr, "{}\n", escape_control(line));
}

int main(int argc, char** argv) {
  account::run_stage("main");
  try {
    int status = dispatch(account::Args(argv + 1, argv + argc));
    account::run_stage("main returns");
    return status;
  } catch (const account::UsageError& e) {
    account::print_message("account: " + e.what);
  } catch (const boost::program_options::error& e) {
    account::print_message(fmt::format("account: {} (try --help)", e.what()));
  } catch (const std::exception& e) {
    account::print_message(fmt::format("account: {}", e.what()));
  }
  return 1;
}
