// account compare: rows of each file, the change against the first in percent,
// one-sided rows marked, a zero baseline N/A, every format.
#include "commands/compare.h"

#include <gtest/gtest.h>

#include "commands/report.h"
#include "compare/compare_table.h"
#include "golden.h"
#include "report_tables.h"

namespace account {
namespace {

using testing::data_path;
using testing::expect_golden;
using testing::Outcome;

CompareOptions ab(Format format = Format::kTable) {
  CompareOptions o;
  o.files = {data_path("a.jsonl"), data_path("b.jsonl")};
  o.names = {"a", "b"};
  o.format = format;
  return o;
}

TEST(Compare, TableWithOneSidedRows) {
  Outcome o = testing::compare(ab());
  EXPECT_EQ(o.status, 0);
  EXPECT_TRUE(o.err.empty());
  EXPECT_EQ(
      o.out,
      "                                             Maximum (MiB)     Copied   Malloc\n"
      "     *Test*     Operation  Build   CPU(s)   Size  Resident     (MiB)    (MiB)   Note\n"
      "--------------- ---------  ------  ------  -------  -------   -------  -------  "
      "------------------------------------------\n"
      "alpha           add        a         1.00    10.00     5.00       4.0      8.0\n"
      "alpha           add        b         0.50    12.00     5.00       5.0      8.0\n"
      "alpha           add        b vs a  -50.0%   +20.0%     0.0%    +25.0%     0.0%  no verdict: "
      "1 and 1 runs (4 a side needed)\n"
      "alpha           commit     a         2.00    20.00    10.00       0.0     16.0  only in a\n"
      "\n"
      "beta            checkout   a         0.00    30.00    15.00       0.0      0.0\n"
      "beta            checkout   b         0.25    30.00    15.00       0.0      0.0\n"
      "beta            checkout   b vs a     N/A     0.0%     0.0%      0.0%     0.0%  no verdict: "
      "1 and 1 runs (4 a side needed)\n"
      "\n"
      "gamma           new        b         3.00     1.00     1.00       1.0      1.0  only in "
      "b\n"
      "\n"
      "Change: of the medians, without a verdict on noise: that needs 4 runs a side (--repeat, "
      "perf-tests' --rounds).\n");
}

TEST(Compare, Csv) {
  Outcome o = testing::compare(ab(Format::kCsv));
  EXPECT_EQ(o.status, 0);
  expect_golden("compare.csv", o.out);
}

TEST(Compare, Json) {
  expect_golden("compare.json", testing::compare(ab(Format::kJson)).out);
}

TEST(Compare, Markdown) {
  expect_golden("compare.md", testing::compare(ab(Format::kMarkdown)).out);
}

TEST(Compare, FileNamesAreTheDefaultLabels) {
  CompareOptions o = ab();
  o.names.clear();
  Outcome r = testing::compare(o);
  EXPECT_NE(r.out.find(data_path("b.jsonl") + " vs " + data_path("a.jsonl")), std::string::npos)
      << r.out;
}

TEST(Compare, MoreThanTwoFilesEachAgainstTheFirst) {
  CompareOptions o = ab();
  o.files.push_back(data_path("c.jsonl"));
  o.names.push_back("c");
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 0);
  expect_golden("compare-three.txt", r.out);
  // c: CPU 2.0 against 1.0, resident 2.5 against 5, malloc 4 against 8.
  EXPECT_NE(
      r.out.find(
          "alpha           add        c vs a  +100.0%     0.0%   -50.0%      0.0%   -50.0%  no "
          "verdict: 1 and 1 runs (4 a side needed)\n"),
      std::string::npos)
      << r.out;
}

TEST(Compare, AnonColumnWithItsChange) {
  // b: the same records with ld's anonymous peak doubled.
  std::string b = testing::read_file(data_path("anon.jsonl"));
  size_t at = b.find(R"("sampled_rss_anon_peak_bytes":63176704)");
  ASSERT_NE(at, std::string::npos);
  b.replace(at, 38, R"("sampled_rss_anon_peak_bytes":126353408)");
  testing::TempFile b_file(b);
  CompareOptions o;
  o.files = {data_path("anon.jsonl"), b_file.path()};
  o.names = {"a", "b"};
  o.columns.figures = {Metric::kAnon};
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("     *Test*     Operation  Build   CPU(s)   Size  Resident    Anon      "
                       "(MiB)    (MiB)   Note\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("build           link       b         0.50   210.00    95.00   120.50      "
                       "16.0      8.0\n"
                       "build           link       b vs a    0.0%     0.0%     0.0%  +100.0%      "
                       "0.0%     0.0%  no verdict: 1 and 1 runs (4 a side needed)\n"),
            std::string::npos)
      << r.out;
  o.format = Format::kCsv;
  std::string csv = testing::compare(o).out;
  // The default header stays a prefix: anon and each figure's interval,
  // verdict and method come after it.
  EXPECT_EQ(
      csv.substr(0, csv.find('\n'))
          .rfind("test,operation,build,row,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,"
                 "processes_without_shim,note,anon_mib,cpu_s_low_pct,",
                 0),
      0u)
      << csv;
  EXPECT_NE(csv.find("build,link,b vs a,change_pct,0,0,0,0,0,,,no verdict: 1 and 1 runs (4 a side "
                     "needed),100,,,too few runs,"),
            std::string::npos)
      << csv;
}

TEST(Compare, BadLinesInOneFileGiveStatusTwo) {
  CompareOptions o = ab();
  o.files[1] = data_path("bad.jsonl");
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.size(), 8u);
  EXPECT_EQ(r.err.back(), "account: skipped 7 bad lines; 2 records read");
}

TEST(Compare, AMissingFileIsStatusOne) {
  CompareOptions o = ab();
  o.files[0] = "/nonexistent/a.jsonl";
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace account
