// How runs ended (issue 20): failed runs marked in every format, kept out of
// the figures unless --include-failed, compare's refusal, exit status 4.
// failed.jsonl: clone ran 3 times (--repeat 3), runs 2 and 3 exited 128;
// status ran once, fine; gc was aborted by --timeout, then interrupted by SIGINT.
// fixed.jsonl: the same labels, every run exit 0.
#include <gtest/gtest.h>

#include "commands/compare.h"
#include "commands/report.h"
#include "compare/compare_table.h"
#include "golden.h"
#include "report_tables.h"
#include "run_end.h"

namespace account {
namespace {

using testing::data_path;
using testing::expect_golden;
using testing::Outcome;

ReportOptions failed(Format format = Format::kTable) {
  ReportOptions o;
  o.files = {data_path("failed.jsonl")};
  o.format = format;
  return o;
}

const char* kNote =
    "Exit: failed runs (exit status not 0, a signal other than its stop signal, --timeout, interrupted) are left out of the "
    "figures and Runs; --include-failed counts them.\n";

TEST(FailedRuns, MarkedInTheTableAndLeftOutOfTheMedian) {
  Outcome o = testing::report(failed());
  EXPECT_EQ(o.status, kStatusFailedRuns);
  EXPECT_EQ(o.status, 4);
  EXPECT_TRUE(o.err.empty());
  expect_golden("failed.table.txt", o.out);
  // clone's only good run: CPU 0.6, 101 MiB (the failed ones had 0.01 and 20 MiB).
  EXPECT_NE(o.out.find("clone           clone        0.60   101.00    41.00      10.0     30.0     "
                       "1  2 of 3 failed: exit 128\n"),
            std::string::npos)
      << o.out;
  // gc has no successful run: no figures at all, not zeros.
  EXPECT_NE(
      o.out.find("clone           gc                                                         0"
                 "  2 of 2 failed: aborted (timeout), interrupted (signal 2)\n"),
      std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find(std::string("\n\n") + kNote), std::string::npos) << o.out;
  // Then, for each operation with failed runs, which runs its figures are of.
  EXPECT_NE(o.out.find(std::string(kNote) +
                       "clone/clone: 2 of 3 failed: exit 128; its figures are of the 1 ok run.\n"
                       "clone/gc: 2 of 2 failed: aborted (timeout), interrupted (signal 2); no run "
                       "is left for its figures.\n"),
            std::string::npos)
      << o.out;
  // With --include-failed: of all the runs.
  ReportOptions all = failed();
  all.include_failed = true;
  EXPECT_NE(testing::report(all).out.find(
                "clone/clone: 2 of 3 failed: exit 128; its figures are of all 3 runs.\n"),
            std::string::npos);
}

TEST(FailedRuns, FieldsInCsvAndJson) {
  Outcome csv = testing::report(failed(Format::kCsv));
  EXPECT_EQ(csv.status, 4);
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')),
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,"
            "processes,processes_without_shim,failed_runs,exit");
  EXPECT_NE(csv.out.find("clone,clone,0.6,101,41,10,30,1,1.000002,1,0,2,2 of 3 failed: exit 128\n"),
            std::string::npos)
      << csv.out;
  expect_golden("failed.csv", csv.out);
  Outcome json = testing::report(failed(Format::kJson));
  EXPECT_EQ(json.status, 4);
  EXPECT_NE(json.out.find(
                R"("runs": 1, "wall_s": 1.000002, "processes": 1, "processes_without_shim": 0, )"
                R"("failed_runs": 2, )"
                R"("exit": "2 of 3 failed: exit 128"})"),
            std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find(R"("cpu_s": null)"), std::string::npos) << json.out;
  expect_golden("failed.json", json.out);
  expect_golden("failed.md", testing::report(failed(Format::kMarkdown)).out);
}

TEST(FailedRuns, IncludeFailedTakesThemBackIn) {
  ReportOptions o = failed();
  o.include_failed = true;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 4);  // they were seen all the same
  expect_golden("failed.include-failed.txt", r.out);
  // clone: the median of 0.60, 0.01, 0.01 over 3 runs.
  EXPECT_NE(r.out.find("clone           clone        0.01    20.00     4.00       0.1      1.0     "
                       "3  2 of 3 failed: exit 128\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("are counted in the figures and Runs (--include-failed).\n"),
            std::string::npos);
}

TEST(FailedRuns, PercentilesCountOnlyGoodRuns) {
  ReportOptions o = failed(Format::kCsv);
  o.percentiles = Metric::kCpu;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 4);
  EXPECT_NE(r.out.find("clone,clone,cpu_s,1,0.6,0.6,0.6,0.6,0.6,0.6,0.6,0.6,0.6,2,"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("clone,gc,cpu_s,0,,,,,,,,,,2,"), std::string::npos) << r.out;
  o.include_failed = true;
  EXPECT_NE(testing::report(o).out.find("clone,clone,cpu_s,3,0.01,0.01,"), std::string::npos);
}

TEST(FailedRuns, NoFailureNoExitColumnUnlessAsked) {
  ReportOptions o;
  o.files = {data_path("fixed.jsonl")};
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.find("Exit"), std::string::npos) << r.out;
  o.columns.exit = true;
  o.columns.figures = {Metric::kHeap};
  r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  expect_golden("fixed.heap-exit.txt", r.out);
  EXPECT_NE(r.out.find("clone           clone        0.70   102.00    42.00     8.00      10.0     "
                       "30.0     3  exit 0\n"),
            std::string::npos)
      << r.out;
}

CompareOptions fixed_vs_failed(Format format = Format::kTable) {
  CompareOptions o;
  o.files = {data_path("fixed.jsonl"), data_path("failed.jsonl")};
  o.names = {"fixed", "failed"};
  o.format = format;
  return o;
}

TEST(FailedRuns, CompareRefusesASideWithoutASuccessfulRun) {
  Outcome r = testing::compare(fixed_vs_failed());
  EXPECT_EQ(r.status, 4);
  EXPECT_EQ(r.err, (std::vector<std::string>{
                       "account: compare: clone/gc: no change: no successful run in failed "
                       "(--include-failed counts failed runs)"}));
  expect_golden("compare-failed.txt", r.out);
  // clone compares fixed's 3 runs against failed's one good run.
  EXPECT_NE(r.out.find("clone           clone      failed vs fixed  -14.3%    -1.0%    -2.4%      "
                       "0.0%     0.0%"),
            std::string::npos)
      << r.out;
  Outcome csv = testing::compare(fixed_vs_failed(Format::kCsv));
  EXPECT_NE(
      csv.out.find("clone,gc,failed vs fixed,change_pct,,,,,,,,no change: no successful run in "
                   "failed,,,"),
      std::string::npos)
      << csv.out;
}

TEST(FailedRuns, CompareOfTwoAllFailedSides) {
  CompareOptions o = fixed_vs_failed();
  o.files[0] = data_path("failed.jsonl");
  o.names = {"a", "b"};
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 4);
  EXPECT_EQ(r.err, (std::vector<std::string>{
                       "account: compare: clone/gc: no change: no successful run in a and b "
                       "(--include-failed counts failed runs)"}));
  o.include_failed = true;
  r = testing::compare(o);
  EXPECT_EQ(r.status, 4);
  EXPECT_TRUE(r.err.empty());
  EXPECT_NE(r.out.find("clone           gc         b vs a    0.0%     0.0%     0.0%      0.0%     "
                       "0.0%"),
            std::string::npos)
      << r.out;
}

TEST(FailedRuns, StatusPrecedence) {
  EXPECT_EQ(final_status(0, false), 0);
  EXPECT_EQ(final_status(0, true), 4);
  EXPECT_EQ(final_status(2, true), 2);
  EXPECT_EQ(final_status(1, true), 1);
  EXPECT_EQ(final_status(3, true), 3);
}

TEST(RunEnd, WhatFailed) {
  TreeRecord t;
  EXPECT_FALSE(end_of_tree(t).failed());  // an older record without a status
  t.exit_code = 0;
  EXPECT_EQ(end_of_tree(t).text(), "exit 0");
  EXPECT_FALSE(end_of_tree(t).failed());
  t.exit_code = 128;
  EXPECT_TRUE(end_of_tree(t).failed());
  t.exit_code.reset();
  t.signal = 9;
  t.aborted = true;
  EXPECT_EQ(end_of_tree(t).text(), "aborted (timeout)");
  t.interrupted = 15;
  EXPECT_EQ(end_of_tree(t).text(), "interrupted (signal 15)");
  ProcessRecord p;
  p.end = "exec";
  EXPECT_FALSE(end_of_process(p).failed());
  p.end = "killed";
  EXPECT_TRUE(end_of_process(p).failed());
  p.end = "exit";
  p.exit_code = 1;
  EXPECT_EQ(end_of_process(p).text(), "exit 1");
  EXPECT_TRUE(end_of_process(p).failed());
  EXPECT_EQ(ends_summary({{RunEnd::How::kExit, 0}, {RunEnd::How::kExit, 0}}), "exit 0");
  EXPECT_EQ(ends_summary({{RunEnd::How::kExit, 1},
                          {RunEnd::How::kExit, 0},
                          {RunEnd::How::kExit, 1},
                          {RunEnd::How::kSignal, 9}}),
            "3 of 4 failed: 2× exit 1, signal 9");
}

// issue 33.1: the signal that is a run's normal stop (stop_signals) makes it
// stopped, counted like exit 0; so does 128+N from a wrapper (git daemon).
TEST(RunEnd, StoppedByItsStopSignal) {
  TreeRecord t;
  t.signal = 15;
  EXPECT_TRUE(end_of_tree(t).failed());
  EXPECT_EQ(end_of_tree(t).text(), "signal 15");
  t.stop_signals = {2, 15};
  EXPECT_FALSE(end_of_tree(t).failed());
  EXPECT_EQ(end_of_tree(t).how, RunEnd::How::kStopped);
  EXPECT_EQ(end_of_tree(t).text(), "stopped (SIGTERM)");
  t.signal = 9;  // not a stop signal
  EXPECT_TRUE(end_of_tree(t).failed());
  t.signal.reset();
  t.exit_code = 143;  // git exits 143 when git-daemon died of SIGTERM
  EXPECT_EQ(end_of_tree(t).text(), "stopped (SIGTERM)");
  t.exit_code = 137;  // 128+9: not a stop signal
  EXPECT_EQ(end_of_tree(t).text(), "exit 137");
  EXPECT_TRUE(end_of_tree(t).failed());
  t.exit_code = 15;  // a plain exit 15 is not a signal
  EXPECT_TRUE(end_of_tree(t).failed());
  t.exit_code.reset();
  t.signal = 15;
  t.interrupted = 15;  // account run itself was interrupted: failed all the same
  EXPECT_TRUE(end_of_tree(t).failed());
  EXPECT_EQ(ends_summary({end_of_tree(TreeRecord{}), RunEnd{RunEnd::How::kStopped, 15}}),
            "unknown, stopped (SIGTERM)");
}

}  // namespace
}  // namespace account
