// Which records make one row and one run (issue 20): unlabelled runs by command
// line, shim-only records apart from account run's runs; --sort; the caps and
// names of the reading messages.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "commands/compare.h"
#include "commands/report.h"
#include "compare/compare_table.h"
#include "golden.h"
#include "report_tables.h"

namespace account {
namespace {

using testing::data_path;
using testing::expect_golden;
using testing::Outcome;

ReportOptions options_for(const std::string& file, Format format = Format::kTable) {
  ReportOptions o;
  o.files = {data_path(file)};
  o.format = format;
  return o;
}

// unlabelled.jsonl: `git status` twice and `python3 script.py` once under
// account run without --test/--op, and an older tree record without `command`
// whose only process is `ls -l`.
TEST(Grouping, UnlabelledRunsAreGroupedByCommandLine) {
  Outcome o = testing::report(options_for("unlabelled.jsonl"));
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(
      o.out,
      "                                             Maximum (MiB)     Copied   Malloc\n"
      "     *Test*     Operation          CPU(s)   Size  Resident     (MiB)    (MiB)   Runs\n"
      "--------------- -----------------  ------  -------  -------   -------  -------  ----\n"
      "                git status           0.03    30.00    10.00       1.0      4.0     2\n"
      "                python3 script.py    0.90    40.00    20.00       2.0     12.0     1\n"
      "                ls -l                0.00     5.00     2.00       0.0      0.2     1\n");
  EXPECT_EQ(o.err, (std::vector<std::string>{
                       "account: 4 runs without test and op labels, grouped by command line into 3 "
                       "rows; label runs with account run --test T --op O"}));
}

TEST(Grouping, UnlabelledRunsMatchByCommandInCompare) {
  CompareOptions o;
  o.files = {data_path("unlabelled.jsonl"), data_path("unlabelled.jsonl")};
  o.names = {"a", "b"};
  o.format = Format::kCsv;
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 0);
  // Two runs a side: the exact figures have a verdict, CPU (which varies) not. Runs and
  // processes_without_shim are empty in a change row.
  EXPECT_NE(r.out.find(",git status,b vs a,change_pct,0,0,0,0,0,,,no verdict where runs vary: 2 "
                       "and 2 runs (4 a side needed),,,too few runs,,0,0,same,exact,"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.err.size(), 1u);
}

// shim-and-run.jsonl: build/make once with ACCOUNT_OUTPUT alone (make and cc,
// no tree record), once under account run; build/crash: a shim-only cc killed
// by SIGSEGV.
TEST(Grouping, ShimOnlyRecordsAndAccountRunAreSeparateRuns) {
  ReportOptions o = options_for("shim-and-run.jsonl");
  o.by_process = true;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 4);  // the crash
  EXPECT_NE(
      r.out.find("build           make         0.50    40.00    10.00       1.0      5.0    1  "
                 "510  exit    make     make\n"
                 "build           make         2.00    50.00    20.00       4.0     10.0    2  "
                 "500  exit    make     make\n"
                 "build           make         1.00    80.00    30.00       2.0     20.0    2  "
                 "501  exit    cc       cc\n"),
      std::string::npos)
      << r.out;
  o.by_process = false;
  o.columns.exit = true;
  r = testing::report(o);
  // make: the median of the tree run (0.5 s) and the shim-only run (3.0 s).
  EXPECT_NE(
      r.out.find("build           make         1.75    60.00    20.00       3.5     17.5     2  "
                 "exit 0\n"),
      std::string::npos)
      << r.out;
  // A run without a tree record ends as its root process does.
  EXPECT_NE(
      r.out.find("build           crash                                                      0  "
                 "1 of 1 failed: signal 11\n"),
      std::string::npos)
      << r.out;
}

// More than 1024 processes of a tree arrive before its record, after shim-only
// records of the same labels: they are folded while waiting, and still end up
// in the tree's run, not pooled with the shim-only ones.
TEST(Grouping, ATreeOfManyProcessesIsNotPooledWithShimOnlyRecords) {
  std::string records;
  auto process = [&](int pid, uint64_t start_ms, double cpu) {
    records += fmt::format(
        R"({{"schema":1,"kind":"process","pid":{},"ppid":1,"exe":"/bin/cc","argv":["cc"],)"
        R"("test":"t","op":"o","start_ns":{},"end_ns":{},"cpu_user_s":{},"cpu_sys_s":0,)"
        R"("malloc_bytes":0,"malloc_calls":0,"free_calls":0,"copied_bytes":0,"copied_calls":0,)"
        R"("heap_peak_bytes":0,"vm_peak_bytes":1048576,"rss_peak_bytes":1048576,)"
        R"("sampled_size_peak_bytes":0,"sampled_rss_peak_bytes":0,"samples":0,"end":"exit",)"
        R"("exit_code":0}})"
        "\n",
        pid, start_ms * 1000000, start_ms * 1000000 + 500000, cpu);
  };
  for (int i = 0; i < 10; ++i) process(100 + i, 1000 + i, 1.0);        // shim-only, at 1 s
  for (int i = 0; i < 1100; ++i) process(2000 + i, 100000 + i, 0.01);  // the tree's, at 100 s
  records += R"({"schema":1,"kind":"tree","test":"t","op":"o","run":1,"start_ns":99000000000,)"
             R"("end_ns":102000000000,"processes":1100,"sampled_size_peak_bytes":0,)"
             R"("sampled_rss_peak_bytes":0,"samples":1,"exit_code":0})"
             "\n";
  testing::TempFile file(records);
  ReportOptions o;
  o.files = {file.path()};
  o.format = Format::kCsv;
  o.percentiles = Metric::kCpu;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  // Two runs: the shim-only one (10 × 1.0 s) and the tree's (1100 × 0.01 s).
  EXPECT_NE(r.out.find("t,o,cpu_s,2,10,"), std::string::npos) << r.out;
  double max = std::stod(r.out.substr(r.out.rfind(',') + 1));
  EXPECT_NEAR(max, 11.0, 1e-9) << r.out;
}

TEST(Sort, RowsByMetricWithinTestsAndTestsByTheirLargest) {
  ReportOptions o = options_for("ops.jsonl");
  o.sort = Metric::kCpu;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  expect_golden("ops.sort-cpu.txt", r.out);
  o.sort = Metric::kSize;
  expect_golden("ops.sort-size.txt", testing::report(o).out);
}

TEST(Sort, BlankRowsLast) {
  ReportOptions o = options_for("failed.jsonl", Format::kCsv);
  o.sort = Metric::kSize;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.out.substr(r.out.find('\n') + 1, 12), "clone,clone,");
  EXPECT_NE(r.out.find("\nclone,gc,"), std::string::npos);
  EXPECT_EQ(r.out.substr(r.out.rfind("\nclone,") + 1, 9), "clone,gc,");
}

TEST(Messages, BadLinesStopAfterTwentyWithACountOfTheRest) {
  std::string garbage;
  for (int i = 0; i < 25; ++i) garbage += "garbage\n";
  testing::TempFile file(garbage + testing::read_file(data_path("a.jsonl")));
  ReportOptions o;
  o.files = {file.path()};
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 2);
  ASSERT_EQ(r.err.size(), 22u);
  EXPECT_EQ(r.err[0], file.path() + ":1: not JSON (syntax error)");
  EXPECT_EQ(r.err[19], file.path() + ":20: not JSON (syntax error)");
  EXPECT_EQ(r.err[20], "account: 5 more bad lines not shown");
  EXPECT_EQ(r.err[21], "account: skipped 25 bad lines; 3 records read");
}

TEST(Messages, AnEmptyInputIsNamed) {
  CompareOptions o;
  o.files = {data_path("a.jsonl"), data_path("empty.jsonl")};
  o.names = {"a", "empty"};
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, (std::vector<std::string>{"account: " + data_path("empty.jsonl") +
                                             ": no records in this input"}));
  ReportOptions all_bad = options_for("all-bad.jsonl");
  EXPECT_EQ(testing::report(all_bad).err.back(),
            "account: no valid record in " + data_path("all-bad.jsonl") + " (2 bad lines)");
}

}  // namespace
}  // namespace account
