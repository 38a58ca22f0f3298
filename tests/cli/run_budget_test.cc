// account run --budget (issue 38.4, what account_add_test's BUDGET calls): the
// run's figures as the report computes them, against byte limits. Over: one
// line and exit 3; unknown (nobody counted it): one line and exit 5; a failed
// command keeps its own status. heap_peak.c asks malloc for exactly 4889254
// bytes (its allocations are fixed; it prints without stdio).
#include <gtest/gtest.h>

#include <algorithm>

#include "run_program.h"

namespace account::testing {
namespace {

ProgramResult account(std::vector<std::string> args) {
  args.insert(args.begin(), ACCOUNT_CLI_PATH);
  return run_program(args);
}

TEST(RunBudget, AFigureAtItsBudgetPassesOneByteOverFails) {
  ProgramResult at = account(
      {"run", "-q", "--budget", "malloc=4889254,resident=1G", "--", test_program("heap_peak")});
  EXPECT_EQ(at.status, 0) << at.err;
  EXPECT_EQ(at.err, "");
  ProgramResult over =
      account({"run", "-q", "--budget", "malloc=4889253", "--", test_program("heap_peak")});
  EXPECT_EQ(over.status, 3);
  EXPECT_EQ(over.err,
            "account run: malloc 4.66 MiB (4889254 bytes) is over its budget of 4.66 MiB "
            "(4889253 bytes)\n");
}

TEST(RunBudget, AnUnknownFigureCannotBeJudged) {
  ProgramResult r = account({"run", "-q", "--budget", "copied=1M", "--", STATIC_PROGRAM_PATH});
  EXPECT_EQ(r.status, 5);
  EXPECT_NE(r.err.find("account run: copied is unknown (no process of the run was counted): its "
                       "budget of 1.00 MiB cannot be judged\n"),
            std::string::npos)
      << r.err;
}

TEST(RunBudget, AFailedCommandKeepsItsStatus) {
  ProgramResult r = account({"run", "-q", "--budget", "malloc=1", "--", "sh", "-c",
                             "exec " + test_program("heap_peak") + "; exit 7"});
  EXPECT_EQ(r.status, 3) << r.err;  // exec'd: heap_peak's own exit 0
  ProgramResult failed =
      account({"run", "-q", "--budget", "malloc=1G", "--", "sh", "-c", "exit 7"});
  EXPECT_EQ(failed.status, 7) << failed.err;
}

// A daemon outlives the command: a figure within its budget so far cannot be
// judged (the daemon's figures come when it ends), one over it already is over.
TEST(RunBudget, ADaemonStillRunningLeavesAFigureWithinItsBudgetUnjudged) {
  const std::string script =
      "sleep 1 </dev/null >/dev/null 2>&1 & exec " + test_program("heap_peak");
  ProgramResult within = account({"run", "-q", "--budget", "malloc=1G", "--", "sh", "-c", script});
  EXPECT_EQ(within.status, 5) << within.err;
  // heap_peak's 4889254 bytes and what sh asked for before its exec.
  EXPECT_EQ(within.err.rfind("account run: malloc 4.6", 0), 0u) << within.err;
  EXPECT_NE(within.err.find(" MiB is within its budget of 1024.00 MiB so far, but 1 process still "
                            "running when the command ended is not in it: not judged\n"),
            std::string::npos)
      << within.err;
  EXPECT_EQ(std::count(within.err.begin(), within.err.end(), '\n'), 1) << within.err;
  ProgramResult over = account({"run", "-q", "--budget", "malloc=1M", "--", "sh", "-c", script});
  EXPECT_EQ(over.status, 3) << over.err;
  EXPECT_EQ(over.err.rfind("account run: malloc 4.6", 0), 0u) << over.err;
  EXPECT_NE(over.err.find(" bytes) is over its budget of 1.00 MiB (1048576 bytes)\n"),
            std::string::npos)
      << over.err;
}

TEST(RunBudget, BadBudgetsAreOneLineBeforeAnythingRuns) {
  ProgramResult cpu = account({"run", "--budget", "cpu=1K", "--", "true"});
  EXPECT_EQ(cpu.status, 1);
  EXPECT_EQ(
      cpu.err,
      "account: run: --budget cpu=1K: not FIGURE=SIZE with FIGURE one of size, resident, "
      "anon, heap, copied, malloc, read, write, rchar, wchar, cgroup, heap_at_exit, temporary\n");
  ProgramResult size = account({"run", "--budget", "malloc=lots", "--", "true"});
  EXPECT_EQ(size.status, 1);
  EXPECT_EQ(size.err,
            "account: run: --budget lots is not a size of 1 byte or more, such as 4096, 64K, 10M "
            "or 1G\n");
}

}  // namespace
}  // namespace account::testing
