#include "formats/counter_thinning.h"

#include <gtest/gtest.h>

namespace account {
namespace {

CounterSeries series(const std::vector<uint64_t>& bytes) {
  CounterSeries s;
  for (size_t i = 0; i < bytes.size(); ++i) s.emplace_back(1000 * i, bytes[i]);
  return s;
}

TEST(CounterThinning, ATrackWithinItsShareKeepsEveryPoint) {
  CounterSeries s = series({5, 1, 9});
  EXPECT_EQ(peak_thinned(s, 3), s);
  EXPECT_EQ(peak_thinned(s, 8), s);
  EXPECT_EQ(peak_thinned({}, 2), CounterSeries{});
}

TEST(CounterThinning, EachSliceKeepsItsHighestPointWithItsTime) {
  // 10 points into 4: slices [0,2) [2,5) [5,7) [7,10) (s.size() * b / cap).
  CounterSeries s = series({3, 7, 2, 2, 8, 1, 6, 4, 9, 5});
  CounterSeries want = {{1000, 7}, {4000, 8}, {6000, 6}, {8000, 9}};
  EXPECT_EQ(peak_thinned(s, 4), want);
}

TEST(CounterThinning, TheFirstOfEqualPeaksIsKept) {
  CounterSeries s = series({4, 4, 1, 1});
  CounterSeries want = {{0, 4}, {2000, 1}};
  EXPECT_EQ(peak_thinned(s, 2), want);
}

TEST(CounterThinning, ASpikeBetweenLowPointsSurvives) {
  // 1,000 points of 10 bytes and one of 999 in the middle, cut to 5: the
  // spike's slice keeps it, where an even stride (every 200th) would drop it.
  std::vector<uint64_t> bytes(1000, 10);
  bytes[517] = 999;
  CounterSeries want = {{0, 10}, {200000, 10}, {517000, 999}, {600000, 10}, {800000, 10}};
  EXPECT_EQ(peak_thinned(series(bytes), 5), want);
}

TEST(CounterThinning, TheBudgetIsSharedAmongTracksDownToTheFloor) {
  EXPECT_EQ(points_per_track(100, 4, 16), 25u);
  EXPECT_EQ(points_per_track(100, 3, 16), 33u);   // rounded down: 99 of 100 used
  EXPECT_EQ(points_per_track(100, 50, 16), 16u);  // 2 each would not draw a curve
  EXPECT_EQ(points_per_track(100, 0, 16), 100u);  // no track: the whole budget
  EXPECT_EQ(points_per_track(size_t(1) << 20, 1000, 16), 1048u);
}

}  // namespace
}  // namespace account
