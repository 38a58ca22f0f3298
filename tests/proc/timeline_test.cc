#include "timeline.h"

#include <gtest/gtest.h>

#include <vector>

namespace account {
namespace {

TimelinePoint at(uint64_t t, uint64_t rss) {
  TimelinePoint p{};
  p.t_us = t;
  p.size_bytes = rss * 2;
  p.rss_bytes = rss;
  p.malloc_bytes = t * 10;
  return p;
}

TEST(Timeline, KeepsEverySampleUntilFull) {
  TimelineState s;
  std::vector<TimelinePoint> points(8);
  timeline_init(&s, 8);
  for (uint64_t i = 0; i < 8; ++i) timeline_add(&s, points.data(), at(i, 100 + i));
  EXPECT_EQ(s.count, 8u);
  EXPECT_EQ(s.stride, 1u);
  for (uint64_t i = 0; i < 8; ++i) EXPECT_EQ(points[i].rss_bytes, 100 + i);
}

TEST(Timeline, HalvesResolutionWhenFullAndKeepsPeaks) {
  TimelineState s;
  std::vector<TimelinePoint> points(8);
  timeline_init(&s, 8);
  // A spike at sample 3 must survive every halving.
  for (uint64_t i = 0; i < 1000; ++i) timeline_add(&s, points.data(), at(i, i == 3 ? 9999 : 1));
  EXPECT_LE(s.count, 8u);
  EXPECT_GE(s.count, 4u);
  EXPECT_EQ(s.stride, 128u);  // 8 points x 128 samples cover the first 1024
  uint64_t peak = 0;
  for (uint32_t i = 0; i < s.count; ++i) peak = std::max(peak, points[i].rss_bytes);
  EXPECT_EQ(peak, 9999u);
  EXPECT_EQ(points[0].rss_bytes, 9999u);
  for (uint32_t i = 1; i < s.count; ++i) EXPECT_GT(points[i].t_us, points[i - 1].t_us);
  // The last point ends no earlier than the last completed span.
  EXPECT_GE(points[s.count - 1].t_us, 1000u - 2 * s.stride);
  // Counters are the value at the end of each point's span.
  EXPECT_EQ(points[0].malloc_bytes, points[0].t_us * 10);
}

TEST(Timeline, OddCapacityIsRoundedDown) {
  TimelineState s;
  timeline_init(&s, 17);
  EXPECT_EQ(s.capacity, 16u);
}

}  // namespace
}  // namespace account
