// The C API from a C program (tests/programs/api_probe.c), with and without
// the shim: without it every call says "not counting" and nothing crashes;
// with it, a reset of the peak window leaves the record's lifetime peak alone.
#include <gtest/gtest.h>

#include "shim_run.h"

namespace account::testing {
namespace {

TEST(ApiProbe, WithoutTheShimNothingIsCountedAndNothingCrashes) {
  ProgramOptions options;
  options.env = clean_env({{"LD_PRELOAD", std::nullopt}});
  ProgramResult r = run_program({test_program("api_probe")}, options);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "counting=0 snapshot=-1 reset=-1\n");
}

TEST(ApiProbe, PeakResetKeepsTheRecordsLifetimePeak) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("api_probe")}, {}, 1);
  EXPECT_EQ(run.result.status, 0) << run.result.err;
  EXPECT_EQ(run.result.out, "counting=1 snapshot=0 reset=0\nwindow_peak_above_live=0\n");
  std::vector<ProcessRecord> records = records_of(run.records, "api_probe");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_GE(records[0].heap_peak_bytes, uint64_t{8} << 20);  // usable: at least what was asked
}

}  // namespace
}  // namespace account::testing
