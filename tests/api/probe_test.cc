// The C API from a C program (tests/programs/api_probe.c), with and without
// the shim: without it every call says "not counting" and nothing crashes;
// with it, a reset of the peak window leaves the record's lifetime peak alone.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "shim_run.h"

namespace account::testing {
namespace {

TEST(ApiProbe, WithoutTheShimNothingIsCountedAndNothingCrashes) {
  ProgramOptions options;
  options.env = clean_env({{"LD_PRELOAD", std::nullopt}});
  ProgramResult r = run_program({test_program("api_probe")}, options);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "counting=0 snapshot=-1 reset=-1 stack=-1\n");
}

TEST(ApiProbe, PeakResetKeepsTheRecordsLifetimePeak) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("api_probe")}, {}, 1);
  EXPECT_EQ(run.result.status, 0) << run.result.err;
  EXPECT_EQ(run.result.out, "counting=1 snapshot=0 reset=0 stack=0\nwindow_peak_above_live=0\n");
  std::vector<ProcessRecord> records = records_of(run.records, "api_probe");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_GE(records[0].heap_peak_bytes, uint64_t{8} << 20);  // usable: at least what was asked
}

// The number after "key": in Google Benchmark's JSON output, or -1.
double json_number(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\": ");
  return at == std::string::npos ? -1 : std::stod(json.substr(at + key.size() + 4));
}

TEST(ApiGtest, WithoutTheShimABudgetSkipsWithTheReason) {
  ProgramOptions options;
  options.env = clean_env({{"LD_PRELOAD", std::nullopt}});
  ProgramResult r = run_program(
      {API_GTEST_BUDGET_TEST, "--gtest_filter=GtestBudget.BudgetsThatHoldPass"}, options);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("account: nothing is counted in this process (run the test under `account "
                       "run` or with LD_PRELOAD=libaccount.so)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("[  SKIPPED ] GtestBudget.BudgetsThatHoldPass"), std::string::npos) << r.out;
}

// 1000 iterations; Benchmark 1.7's memory run is min(16, iterations) more,
// between MemoryManager's Start and Stop, with a few allocations of its own.
TEST(ApiBenchmark, MemoryManagerAndCopiedCountersInTheJson) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {API_BENCHMARK_PROBE, "--benchmark_format=json"});
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  const std::string& json = run.result.out;
  EXPECT_EQ(json_number(json, "iterations"), 1000) << json;
  EXPECT_EQ(json_number(json, "copied_bytes"), 4096) << json;
  EXPECT_EQ(json_number(json, "copied_calls"), 1) << json;
  EXPECT_GE(json_number(json, "allocs_per_iter"), 2) << json;
  EXPECT_LT(json_number(json, "allocs_per_iter"), 2.5) << json;  // 8 of Benchmark's own at most
  EXPECT_GE(json_number(json, "total_allocated_bytes"), 16 * 4000) << json;
  EXPECT_LT(json_number(json, "total_allocated_bytes"), 16 * 4000 + 4096) << json;
  EXPECT_GE(json_number(json, "max_bytes_used"), 4000) << json;  // usable: at least asked
  EXPECT_LT(std::abs(json_number(json, "net_heap_growth")), 4096) << json;
}

TEST(ApiBenchmark, WithoutTheShimTheJsonHasNoMemoryFiguresAndSaysWhy) {
  ProgramOptions options;
  options.env = clean_env({{"LD_PRELOAD", std::nullopt}});
  ProgramResult r = run_program({API_BENCHMARK_PROBE, "--benchmark_format=json"}, options);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_number(r.out, "iterations"), 1000) << r.out;
  EXPECT_EQ(r.out.find("copied_bytes"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("allocs_per_iter"), std::string::npos) << r.out;  // not a 0
  EXPECT_EQ(r.out.find("max_bytes_used"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("account: nothing is counted in this process, so no memory figures"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace account::testing
