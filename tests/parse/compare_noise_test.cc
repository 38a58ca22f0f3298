// account compare's verdicts on noise, many builds and the --fail-on gate, on
// three builds of data/make_noise_runs.py: base, same (A/A) and slower (CPU
// +20 %, malloc +1 byte in every run), 6 runs of clone and 1 of status each.
#include <gtest/gtest.h>

#include <cmath>

#include "commands/compare.h"
#include "commands/report.h"
#include "compare/change.h"
#include "compare/compare_table.h"
#include "golden.h"
#include "reader.h"
#include "report_tables.h"

namespace account {
namespace {

using testing::data_path;
using testing::expect_golden;
using testing::Outcome;

CompareOptions three(Format format = Format::kTable) {
  CompareOptions o;
  o.files = {data_path("noise-base.jsonl"), data_path("noise-same.jsonl"),
             data_path("noise-slower.jsonl")};
  o.names = {"base", "same", "slower"};
  o.format = format;
  return o;
}

TEST(CompareNoise, ThreeBuildsTable) {
  Outcome o = testing::compare(three());
  EXPECT_EQ(o.status, 0);
  EXPECT_TRUE(o.err.empty());
  expect_golden("compare-noise.txt", o.out);
}

TEST(CompareNoise, ThreeBuildsCsv) {
  expect_golden("compare-noise.csv", testing::compare(three(Format::kCsv)).out);
}

TEST(CompareNoise, ThreeBuildsJson) {
  expect_golden("compare-noise.json", testing::compare(three(Format::kJson)).out);
}

TEST(CompareNoise, ThreeBuildsMarkdown) {
  expect_golden("compare-noise.md", testing::compare(three(Format::kMarkdown)).out);
}

// The figures behind the goldens, one by one.
TEST(CompareNoise, AAFlagsNothingABFlagsCpuAndTheOneByte) {
  std::vector<std::vector<Operation>> inputs;
  for (const char* name : {"noise-base.jsonl", "noise-same.jsonl", "noise-slower.jsonl"}) {
    std::string error;
    auto reader = LineReader::open(data_path(name), &error);
    ASSERT_TRUE(reader) << error;
    Aggregator a;
    ReadSummary s;
    read_records(
        *reader, false, [&](Record&& r) { a.add(r); },
        [](const BadLine& b) { ADD_FAILURE() << b.message(); }, &s);
    inputs.push_back(a.finish());
  }
  auto clone_runs = [&](size_t i) {
    for (const Operation& op : inputs[i])
      if (op.op == "clone") return counted_runs(op, false);
    return std::vector<RunFigures>{};
  };
  ASSERT_EQ(clone_runs(0).size(), 6u);
  for (Metric m : {Metric::kWall, Metric::kCpu, Metric::kSize, Metric::kResident, Metric::kCopied,
                   Metric::kMalloc}) {
    MetricChange aa = metric_change(clone_runs(0), clone_runs(1), m);
    EXPECT_TRUE(aa.estimate.verdict == Verdict::kNoise || aa.estimate.verdict == Verdict::kSame)
        << metric_name(m) << " " << verdict_name(aa.estimate.verdict);
  }
  MetricChange cpu = metric_change(clone_runs(0), clone_runs(2), Metric::kCpu);
  EXPECT_EQ(cpu.estimate.verdict, Verdict::kWorse);
  EXPECT_EQ(cpu.estimate.method, "hodges-lehmann");
  EXPECT_GT(*cpu.low_pct, 10.0);
  EXPECT_LT(*cpu.high_pct, 30.0);
  MetricChange malloc = metric_change(clone_runs(0), clone_runs(2), Metric::kMalloc);
  EXPECT_EQ(malloc.estimate.method, "exact");
  EXPECT_EQ(malloc.estimate.verdict, Verdict::kWorse);
  // One byte more of 8 MiB: the log ratio, and an interval that is the change itself.
  EXPECT_TRUE(malloc.log_scale);
  EXPECT_NEAR(malloc.estimate.shift, std::log1p(1.0 / (8 * 1024 * 1024)),
              1e-15);  // a difference of two logs near 16
  EXPECT_NEAR(*malloc.low_pct, 100.0 / (8 * 1024 * 1024), 1e-15);
  EXPECT_DOUBLE_EQ(*malloc.low_pct, *malloc.high_pct);
  MetricChange copied = metric_change(clone_runs(0), clone_runs(2), Metric::kCopied);
  EXPECT_EQ(copied.estimate.verdict, Verdict::kSame);
}

std::vector<Gate> gates(const std::string& spec) {
  std::string error;
  auto g = parse_gates(spec, &error);
  EXPECT_TRUE(g) << error;
  return g ? *g : std::vector<Gate>{};
}

TEST(CompareGate, RegressionBeyondItsLimitExitsThree) {
  CompareOptions o = three();
  o.fail_on = gates("cpu=5%,resident=2%,malloc=0%");
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 3);
  std::vector<std::string> failures, ungated;
  for (const std::string& line : r.err)
    (line.find("regression:") != std::string::npos ? failures : ungated).push_back(line);
  ASSERT_EQ(failures.size(), 2u) << r.out;
  EXPECT_EQ(
      failures[0].rfind("account: compare: regression: clone/clone: slower vs base: cpu +", 0), 0u)
      << failures[0];
  EXPECT_NE(failures[0].find("95% interval +"), std::string::npos) << failures[0];
  EXPECT_NE(failures[0].find("over the 5% limit"), std::string::npos) << failures[0];
  // One byte more of 8 MiB, in every run: a change, printed with the digits it needs.
  EXPECT_EQ(failures[1],
            "account: compare: regression: clone/clone: slower vs base: malloc +0.00001% (exact: "
            "in every run), over the 0% limit");
  // status has one run a build: one line per pair says it could not be judged and
  // how to fix that, then a summary; exit 3 wins over the 5 these call for.
  ASSERT_EQ(ungated.size(), 3u);
  EXPECT_EQ(ungated[0],
            "account: compare: --fail-on: cpu, resident, malloc: status/status (same vs base) not "
            "judged: 1 and 1 runs, 5 a side needed across 12 gated figures: --repeat 5");
  EXPECT_EQ(ungated[2],
            "account: compare: --fail-on: 6 of 12 gated figures not judged: exit status 3, which "
            "wins over 5");
}

TEST(CompareGate, ImprovementAndNoiseDoNotFail) {
  CompareOptions o = three();
  // slower against itself as the first file: base and same are 20 % better.
  o.files = {data_path("noise-slower.jsonl"), data_path("noise-base.jsonl"),
             data_path("noise-same.jsonl")};
  o.names = {"slower", "base", "same"};
  o.fail_on = gates("cpu=5,wall=5,size=1,resident=1,copied=0");
  o.allow_unjudged = true;  // status/status: one run a build
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 0) << r.out;
  for (const std::string& line : r.err) EXPECT_EQ(line.find("regression"), std::string::npos);
}

TEST(CompareGate, BelowItsLimitDoesNotFail) {
  CompareOptions o = three();
  o.fail_on = gates("cpu=50%");  // +20 % is significant but under 50 %
  o.allow_unjudged = true;       // status/status: one run a build
  EXPECT_EQ(testing::compare(o).status, 0);
}

TEST(CompareGate, WallIsGatedThoughNotAColumn) {
  CompareOptions o = three();
  o.fail_on = gates("wall=5%");
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 3);
  bool found = false;
  for (const std::string& line : r.err)
    found = found || line.find("slower vs base: wall +") != std::string::npos;
  EXPECT_TRUE(found);
}

// issue 33: one run a side is no verdict, so the gate fails closed (5), one
// line per operation saying why and what to do; --allow-unjudged passes it.
TEST(CompareGate, TooFewRunsIsFiveWithOneLineEach) {
  CompareOptions o;
  o.files = {data_path("a.jsonl"), data_path("b.jsonl")};
  o.names = {"a", "b"};
  o.fail_on = gates("cpu=1%");
  Outcome r = testing::compare(o);
  EXPECT_EQ(r.status, 5);
  EXPECT_EQ(r.err, (std::vector<std::string>{
                       "account: compare: --fail-on: cpu: alpha/add not judged: 1 and 1 runs, 4 "
                       "a side needed: --repeat 4",
                       "account: compare: --fail-on: cpu: alpha/commit not judged: only in a: "
                       "record it with both builds (or --allow-unjudged)",
                       "account: compare: --fail-on: cpu: beta/checkout not judged: 1 and 1 runs, "
                       "4 a side needed: --repeat 4",
                       "account: compare: --fail-on: cpu: gamma/new not judged: only in b: record "
                       "it with both builds (or --allow-unjudged)",
                       "account: compare: --fail-on: 4 of 4 gated figures not judged: exit status "
                       "5 (--allow-unjudged passes them)"}));
  o.allow_unjudged = true;
  Outcome allowed = testing::compare(o);
  EXPECT_EQ(allowed.status, 0);
  ASSERT_EQ(allowed.err.size(), 5u);
  EXPECT_EQ(allowed.err[0], r.err[0]);
  EXPECT_EQ(allowed.err[4],
            "account: compare: --fail-on: 4 of 4 gated figures not judged: passed "
            "(--allow-unjudged)");
}

TEST(CompareGate, BadSpecsAreOneLine) {
  std::string error;
  EXPECT_FALSE(parse_gates("rss=5%", &error));
  EXPECT_EQ(error,
            "--fail-on 'rss=5%': unknown metric 'rss' (known: wall, cpu, size, resident, anon, "
            "heap, copied, malloc, minor_faults, major_faults, voluntary_ctxsw, involuntary_ctxsw, "
            "read, write, rchar, wchar, cgroup, pids, heap_at_exit, blocks_at_exit, "
            "temporary_allocs, temporary)");
  EXPECT_FALSE(parse_gates("cpu", &error));
  EXPECT_EQ(error, "--fail-on 'cpu': 'cpu' is not METRIC=PERCENT (e.g. cpu=5%)");
  EXPECT_FALSE(parse_gates("cpu=-1%", &error));
  EXPECT_EQ(error, "--fail-on 'cpu=-1%': '-1%' is not a percentage of 0 or more for cpu");
  EXPECT_FALSE(parse_gates("cpu=5%,", &error));
  EXPECT_EQ(error, "--fail-on 'cpu=5%,': '' is not METRIC=PERCENT (e.g. cpu=5%)");
  auto ok = parse_gates("cpu=5%,malloc=0.5", &error);
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[1].metric, Metric::kMalloc);
  EXPECT_DOUBLE_EQ((*ok)[1].threshold_pct, 0.5);
}

}  // namespace
}  // namespace account
