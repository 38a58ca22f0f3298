// E-Divisive (history/e_divisive.h): where it splits, what its permutation
// test says, and that the same series always gives the same answer.
#include "e_divisive.h"

#include <gtest/gtest.h>

#include <random>

namespace account {
namespace {

// `commits` groups of `runs` values around 1 (normal noise), `step` higher from `at` on.
std::vector<std::vector<double>> stepped(size_t commits, size_t runs, double noise, double step,
                                         size_t at, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0, noise);
  std::vector<std::vector<double>> out(commits);
  for (size_t c = 0; c < commits; ++c)
    for (size_t r = 0; r < runs; ++r)
      out[c].push_back((c >= at ? 1 + step : 1) * (1 + normal(random)));
  return out;
}

TEST(EDivisive, FindsAStepAtTheFirstCommitAfterIt) {
  auto changes = e_divisive(stepped(30, 5, 0.02, 0.05, 17, 1));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 17u);
  // No permutation of 999 was as extreme: the smallest p-value the test gives.
  EXPECT_DOUBLE_EQ(changes[0].p_value, 0.001);
}

TEST(EDivisive, FindsTwoStepsEachWhereItIs) {
  auto series = stepped(40, 5, 0.02, 0.05, 12, 2);
  for (size_t c = 28; c < 40; ++c)
    for (double& v : series[c]) v *= 1.06;
  auto changes = e_divisive(series);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].index, 12u);
  EXPECT_EQ(changes[1].index, 28u);
}

TEST(EDivisive, AFlatSeriesHasNoChangePoint) {
  for (uint64_t seed = 1; seed <= 5; ++seed)
    EXPECT_TRUE(e_divisive(stepped(40, 5, 0.02, 0, 40, seed)).empty()) << "seed " << seed;
}

TEST(EDivisive, TheSameSeriesGivesTheSamePValues) {
  auto series = stepped(20, 3, 0.05, 0.04, 10, 7);
  EDivisiveOptions o;
  o.significance = 1;  // every split, with its p-value
  auto a = e_divisive(series, o), b = e_divisive(series, o);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].p_value, b[i].p_value);
  }
}

TEST(EDivisive, TheNewestCommitAloneCanBeASegment) {
  // Twenty quiet commits, then one far off: a change at the last commit.
  auto series = stepped(21, 5, 0.01, 0.5, 20, 3);
  auto changes = e_divisive(series);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 20u);
}

TEST(EDivisive, TooShortASeriesHasNone) {
  EXPECT_TRUE(e_divisive({{1.0}}).empty());
  EXPECT_TRUE(e_divisive({}).empty());
}

}  // namespace
}  // namespace account
