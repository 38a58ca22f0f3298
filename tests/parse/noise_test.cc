// The noise bounds of compare: Hodges–Lehmann intervals and Mann–Whitney
// p-values against values computed independently, and the verdicts on
// synthetic runs with fixed seeds.
#include "compare/noise.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>

namespace account {
namespace {

// Expected values in this file were computed with a separate Python script
// that enumerates all C(n+m, n) rank arrangements to get the exact null
// distribution of U (itertools.combinations), takes the sorted pairwise
// differences and statistics.median, and for ties the normal approximation with
// math.erfc. R's qwilcox(0.025, n, n) gives the same k: 3 for 5 runs, 6 for 6.

TEST(Noise, IntervalCutsMatchTheExactDistribution) {
  EXPECT_EQ(hodges_lehmann_cut(3, 3, 0.95), 0u);  // 1/20 > 2.5 %: no 95 % interval
  EXPECT_EQ(hodges_lehmann_cut(4, 4, 0.95), 1u);
  EXPECT_EQ(hodges_lehmann_cut(5, 5, 0.95), 3u);
  EXPECT_EQ(hodges_lehmann_cut(6, 6, 0.95), 6u);
}

TEST(Noise, ClearShiftOfFiveRunsEach) {
  std::vector<double> a = {10.0, 10.4, 9.8, 10.1, 10.3}, b = {11.0, 11.3, 10.9, 11.5, 11.1};
  ChangeEstimate e = estimate_change(a, b);
  EXPECT_EQ(e.method, "hodges-lehmann");
  EXPECT_NEAR(e.shift, 1.0, 1e-12);
  EXPECT_NEAR(e.low, 0.6, 1e-12);
  EXPECT_NEAR(e.high, 1.5, 1e-12);
  EXPECT_NEAR(e.p_value, 2.0 / 252, 1e-12);  // U = 25 of 25: the most extreme of 252
  EXPECT_EQ(e.verdict, Verdict::kWorse);
  EXPECT_EQ(estimate_change(b, a).verdict, Verdict::kBetter);
  EXPECT_NEAR(estimate_change(b, a).low, -1.5, 1e-12);
}

TEST(Noise, OverlappingRunsAreNoise) {
  std::vector<double> a = {10.0, 10.4, 9.8, 10.1, 10.3, 10.6},
                      b = {10.2, 10.5, 9.9, 10.7, 10.35, 10.05};
  ChangeEstimate e = estimate_change(a, b);
  EXPECT_NEAR(e.shift, 0.1, 1e-12);
  EXPECT_NEAR(e.low, -0.35, 1e-12);
  EXPECT_NEAR(e.high, 0.5, 1e-12);
  EXPECT_NEAR(e.p_value, 0.6991341991341992, 1e-12);  // U = 21
  EXPECT_EQ(e.verdict, Verdict::kNoise);
  EXPECT_STREQ(verdict_name(e.verdict), "~");
}

TEST(Noise, TiesUseTheNormalApproximation) {
  std::vector<double> a = {5, 6, 6, 7, 8, 8, 8, 9, 10, 11, 12, 12},
                      b = {7, 8, 8, 9, 10, 10, 11, 12, 12, 13, 14, 15};
  // U = 106.5, tie-corrected variance 295.0435, z = 1.97941.
  EXPECT_NEAR(mann_whitney_p(a, b), 0.04776978794696605, 1e-9);
}

TEST(Noise, TooFewRunsGiveNoVerdict) {
  ChangeEstimate e = estimate_change({1.0, 1.1, 0.9}, {2.0, 2.1, 1.9});
  EXPECT_EQ(e.verdict, Verdict::kTooFewRuns);
  EXPECT_EQ(e.min_runs_per_side, 4u);
  EXPECT_EQ(estimate_change({1.0}, {2.0}).verdict, Verdict::kTooFewRuns);
}

// Exact metrics (malloc and copied bytes do not vary between runs): a one-byte
// change present in every run is a change, with two runs a side.
TEST(Noise, ExactMetricsCompareExactly) {
  ChangeEstimate e = estimate_change({1000, 1000}, {1001, 1001});
  EXPECT_EQ(e.method, "exact");
  EXPECT_EQ(e.verdict, Verdict::kWorse);
  EXPECT_EQ(e.shift, 1);
  EXPECT_EQ(estimate_change({1000, 1000, 1000}, {1000, 1000}).verdict, Verdict::kSame);
  EXPECT_EQ(estimate_change({1000, 1000}, {999, 999}).verdict, Verdict::kBetter);
}

// A deterministic stand-in for noisy runs: a 64-bit LCG, the sum of four
// uniforms (roughly normal), so the test cannot flake.
std::vector<double> runs(uint64_t seed, size_t count, double centre, double spread) {
  std::vector<double> v;
  for (size_t i = 0; i < count; ++i) {
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      sum += double(seed >> 11) / double(1ull << 53);
    }
    v.push_back(centre + spread * (sum - 2));
  }
  return v;
}

TEST(Noise, AAFlagsNothingAndABWithATwentyPercentShiftIsFlagged) {
  ChangeEstimate aa = estimate_change(runs(1, 10, 1.0, 0.1), runs(1001, 10, 1.0, 0.1));
  EXPECT_EQ(aa.verdict, Verdict::kNoise);
  EXPECT_LT(aa.low, 0);
  EXPECT_GT(aa.high, 0);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    ChangeEstimate ab = estimate_change(runs(seed, 10, 1.0, 0.1), runs(seed + 1000, 10, 1.2, 0.12));
    EXPECT_EQ(ab.verdict, Verdict::kWorse) << "seed " << seed;
    EXPECT_GT(ab.low, 0);
    EXPECT_NEAR(ab.shift, 0.2, 0.08);
  }
}

// Over many A/A pairs the 95 % interval misses "no change" about 5 % of the
// time (the exact interval is conservative: at most 5 %, here 400 pairs).
TEST(Noise, FalseAlarmsOfAAPairsStayNearFivePercent) {
  int flagged = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed)
    flagged +=
        estimate_change(runs(seed, 10, 1.0, 0.1), runs(seed + 100000, 10, 1.0, 0.1)).verdict !=
        Verdict::kNoise;
  std::cout << "[          ] A/A false alarms: " << flagged << " of 400\n";
  EXPECT_LE(flagged, 30);  // 5 % is 20; 30 is beyond chance for 400 pairs
  EXPECT_GE(flagged, 4);   // an interval that never misses is too wide
}

}  // namespace
}  // namespace account
