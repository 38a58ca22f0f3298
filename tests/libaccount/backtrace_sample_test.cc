// ACCOUNT_BACKTRACE_SAMPLE (account run --backtrace-sample; docs/leaks.md):
// one capture about every N bytes allocated, each standing for the bytes and
// allocations around it, so the profile's totals estimate the whole heap's.
#include <gtest/gtest.h>

#include "account_cli.h"
#include "backtrace_record.h"
#include "shim_run.h"

namespace account::testing {
namespace {

struct Estimate {
  uint64_t count = 0, bytes = 0, sample_bytes = 0, malloc_calls = 0, malloc_bytes = 0;
};

// An integer key of a one-line record, 0 when absent.
uint64_t json_u64(const std::string& line, const std::string& key) {
  size_t at = line.find("\"" + key + "\":");
  return at == std::string::npos ? 0 : std::stoull(line.substr(at + key.size() + 3));
}

Estimate estimate_of(const TempDir& dir, const std::vector<std::string>& mode) {
  std::string out = dir.path() + "/sampled.jsonl";
  std::vector<std::string> args = {"run", "-q", "--backtrace-sample", "64K", "-o",
                                   out,   "--", test_program("leaks")};
  args.insert(args.end(), mode.begin(), mode.end());
  ProgramResult run = account(args);
  EXPECT_EQ(run.status, 0) << run.err;
  Estimate e;
  std::string all = slurp(out);
  std::string line = all.substr(0, all.find('\n'));  // the process record; the tree record follows
  std::string reason;
  std::optional<ProcessBacktraces> p = parse_backtraces(line, &reason);
  EXPECT_TRUE(p) << reason << line;
  if (!p) return e;
  e.sample_bytes = p->sample_bytes;
  for (const AllocationGroup& g : p->groups) e.count += g.count, e.bytes += g.bytes;
  if (p->other) e.count += p->other->count, e.bytes += p->other->bytes;
  e.malloc_calls = json_u64(line, "malloc_calls");
  e.malloc_bytes = json_u64(line, "malloc_bytes");
  return e;
}

TEST(BacktraceSample, SmallAllocationsAreEstimatedFromTheirSamples) {
  // 200,000 blocks of 64 bytes: 12.8 MB, about 195 samples of 64 KiB each.
  // Each sample stands for 64 KiB: the estimate's relative error is about
  // 1/sqrt(195) = 7 %; 25 % is more than three of those either way.
  TempDir dir;
  Estimate e = estimate_of(dir, {"temporaries", "200000"});
  EXPECT_EQ(e.sample_bytes, 65536u);
  EXPECT_GE(e.malloc_bytes, 200000u * 64);
  EXPECT_GT(double(e.bytes), 0.75 * double(e.malloc_bytes)) << e.bytes;
  EXPECT_LT(double(e.bytes), 1.25 * double(e.malloc_bytes)) << e.bytes;
  EXPECT_GT(double(e.count), 0.75 * double(e.malloc_calls)) << e.count;
  EXPECT_LT(double(e.count), 1.25 * double(e.malloc_calls)) << e.count;
}

TEST(BacktraceSample, AnAllocationLargerThanEveryIntervalIsAlwaysCapturedExactly) {
  // Intervals are drawn from [32 KiB, 96 KiB): a 256 KiB block always
  // crosses one and stands for itself alone.
  TempDir dir;
  Estimate e = estimate_of(dir, {"big", "50"});
  EXPECT_EQ(e.bytes, 50u * 256 * 1024);
  EXPECT_EQ(e.count, 50u);
}

TEST(BacktraceSample, TakesNoThresholdOrLeaks) {
  ProgramResult r = account({"run", "--backtrace-sample", "64K", "--leaks", "--", "true"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "account: run: --backtrace-sample takes no --backtrace-min or --leaks (a sampled block "
            "stands for others: its free says nothing of theirs)\n");
}

}  // namespace
}  // namespace account::testing
