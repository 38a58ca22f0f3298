// Chart geometry: scales, ticks a person reads, labels, and the reduction of a
// long curve that never loses a peak.
#include "formats/chart_geometry.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace account {
namespace {

TEST(ChartGeometry, LinearScaleMapsAndFlipsAndCentresAFlatDomain) {
  LinearScale y{0, 100, 200, 0};  // an SVG y axis: larger values higher up
  EXPECT_DOUBLE_EQ(y(0), 200);
  EXPECT_DOUBLE_EQ(y(25), 150);
  EXPECT_DOUBLE_EQ(y(100), 0);
  LinearScale flat{5, 5, 0, 10};
  EXPECT_DOUBLE_EQ(flat(5), 5);
}

TEST(ChartGeometry, TicksAreOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(nice_ticks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  EXPECT_EQ(nice_ticks(0, 9.5, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(nice_ticks(0, 230, 5), (std::vector<double>{0, 50, 100, 150, 200, 250}));
  EXPECT_EQ(nice_ticks(0.3, 1.7, 4), (std::vector<double>{0, 0.5, 1, 1.5, 2}));
  EXPECT_EQ(nice_ticks(3, 3, 4).front(), 3);  // a flat range still gets an axis
}

TEST(ChartGeometry, LabelsInMiBAndSeconds) {
  const double mib = 1048576;
  EXPECT_EQ(format_mib_tick(0, 50 * mib), "0");
  EXPECT_EQ(format_mib_tick(1536 * mib, 512 * mib), "1,536");
  EXPECT_EQ(format_mib_tick(2.5 * mib, 0.5 * mib), "2.5");
  EXPECT_EQ(format_seconds_tick(0.25, 0.05), "0.25 s");
  EXPECT_EQ(format_seconds_tick(3, 1), "3 s");
}

// The steps below one are 1/10^n, the double nearest the decimal: the page's
// zoom script computes them the same way (no pow(), whose last bit differs).
TEST(ChartGeometry, SmallStepsAreTheDoublesOfTheirDecimals) {
  EXPECT_EQ(nice_ticks(0, 8e-4, 8)[1], 1e-4);
  EXPECT_EQ(nice_ticks(0, 1.6e-5, 8)[1], 2e-6);
  EXPECT_EQ(nice_ticks(0, 0.04, 8)[1], 0.005);
  EXPECT_EQ(nice_ticks(0, 1e7, 8)[1], 2e6);
}

TEST(ChartGeometry, TimeAxisLabelsEachTickWithTheStepsDecimals) {
  TimeAxis axis = time_axis(0.13, 0.87);
  EXPECT_EQ(axis.labels, (std::vector<std::string>{"0.1 s", "0.2 s", "0.3 s", "0.4 s", "0.5 s",
                                                   "0.6 s", "0.7 s", "0.8 s", "0.9 s"}));
  EXPECT_EQ(axis.ticks.size(), axis.labels.size());
  EXPECT_EQ(time_axis(0, 47).labels,
            (std::vector<std::string>{"0 s", "10 s", "20 s", "30 s", "40 s", "50 s"}));
  EXPECT_EQ(time_axis(1.2, 1.2003).labels.front(), "1.20000 s");
}

TEST(ChartGeometry, ReductionKeepsEveryColumnsPeakAndTheEnds) {
  std::vector<CurvePoint> curve;
  for (int i = 0; i < 100000; ++i) curve.push_back({double(i), double((i * 7919) % 1000)});
  curve[54321].y = 5000;  // one spike between two samples' worth of neighbours
  std::vector<CurvePoint> r = reduce_for_drawing(curve, 400);
  EXPECT_LE(r.size(), 2u * 400 + 2);
  EXPECT_EQ(r.front().x, 0);
  EXPECT_EQ(r.back().x, 99999);
  EXPECT_TRUE(std::is_sorted(r.begin(), r.end(),
                             [](const CurvePoint& a, const CurvePoint& b) { return a.x < b.x; }));
  auto peak = std::max_element(r.begin(), r.end(),
                               [](const CurvePoint& a, const CurvePoint& b) { return a.y < b.y; });
  EXPECT_EQ(peak->y, 5000);
  EXPECT_EQ(peak->x, 54321);
  // Every column's maximum is in the reduced curve.
  for (int c = 0; c < 400; ++c) {
    double best = -1;
    for (int i = c * 250; i < (c + 1) * 250; ++i)
      if (i > 0 && i < 99999) best = std::max(best, curve[i].y);
    bool found = std::any_of(r.begin(), r.end(), [&](const CurvePoint& p) {
      return p.x >= c * 250 && p.x < (c + 1) * 250 && p.y == best;
    });
    EXPECT_TRUE(found) << "column " << c;
  }
  std::vector<CurvePoint> small = {{0, 1}, {1, 3}, {2, 2}};
  EXPECT_EQ(reduce_for_drawing(small, 400).size(), 3u);
}

TEST(ChartGeometry, ReductionSkipsEmptyColumns) {
  std::vector<CurvePoint> curve;
  for (int i = 0; i < 50; ++i) curve.push_back({double(i), 1});
  for (int i = 0; i < 50; ++i) curve.push_back({1000.0 + i, 2});  // a gap of many columns
  std::vector<CurvePoint> r = reduce_for_drawing(curve, 10);
  for (size_t i = 1; i < r.size(); ++i) EXPECT_LT(r[i - 1].x, r[i].x);  // no point twice
}

TEST(ChartGeometry, EscapesForXml) {
  EXPECT_EQ(xml_escape("git <a> & \"b\" 'c'\x01"),
            "git &lt;a&gt; &amp; &quot;b&quot; &#39;c&#39;?");
}

}  // namespace
}  // namespace account
