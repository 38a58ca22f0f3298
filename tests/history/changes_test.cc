// history/changes.h: exact figures compared exactly (a 1-byte change at its
// commit), varying ones through E-Divisive, the segments' change.
#include "changes.h"

#include <gtest/gtest.h>

namespace account {
namespace {

RunFigures run(uint64_t malloc_bytes, double cpu_s) {
  RunFigures r;
  r.malloc_bytes = malloc_bytes;
  r.cpu_s = cpu_s;
  r.shim_processes = 1;
  return r;
}

TEST(MetricChanges, AOneByteChangeIsFoundAtItsCommit) {
  CommitSeries s;
  for (int c = 0; c < 10; ++c) {
    uint64_t bytes = (1 << 20) + (c >= 6 ? 1 : 0);
    s.push_back({run(bytes, 1.0 + 0.01 * c), run(bytes, 1.02), run(bytes, 0.99)});
  }
  ASSERT_TRUE(exact_series(s, Metric::kMalloc));
  EXPECT_FALSE(exact_series(s, Metric::kCpu));
  auto changes = metric_changes(s, Metric::kMalloc);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 6u);
  EXPECT_TRUE(changes[0].exact);
  EXPECT_EQ(changes[0].p_value, 0);
  EXPECT_EQ(changes[0].change.base, 1.0);
  EXPECT_EQ(changes[0].change.value, double((1 << 20) + 1) / (1 << 20));
  ASSERT_TRUE(changes[0].change.change_pct);
  EXPECT_DOUBLE_EQ(*changes[0].change.change_pct, 100.0 / (1 << 20));
  EXPECT_EQ(changes[0].change.estimate.method, "exact");
}

TEST(MetricChanges, EveryExactChangeIsOneChangePointWithItsOwnSegments) {
  CommitSeries s;
  for (uint64_t bytes : {100, 100, 200, 200, 200, 150})
    s.push_back({run(bytes << 20, 1), run(bytes << 20, 1)});
  auto changes = metric_changes(s, Metric::kMalloc);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].index, 2u);
  EXPECT_EQ(changes[0].change.base, 100);
  EXPECT_EQ(changes[0].change.value, 200);
  EXPECT_EQ(changes[1].index, 5u);
  EXPECT_EQ(changes[1].change.base, 200);
  EXPECT_EQ(changes[1].change.value, 150);
  EXPECT_DOUBLE_EQ(*changes[1].change.change_pct, -25);
}

TEST(MetricChanges, OneRunACommitIsNotExact) {
  // Nobody knows whether a single run varies: E-Divisive judges it.
  CommitSeries s;
  for (int c = 0; c < 10; ++c) s.push_back({run(c == 9 ? 2 : 1, 1)});
  EXPECT_FALSE(exact_series(s, Metric::kMalloc));
}

}  // namespace
}  // namespace account
