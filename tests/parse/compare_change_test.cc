// Honest intervals (issue 33): a change and its interval never pass -100 %,
// and a change beyond noise never prints as 0.0 %.
#include <gtest/gtest.h>

#include "cell_text.h"
#include "commands/compare.h"
#include "commands/report.h"
#include "compare/change.h"
#include "compare/compare_table.h"
#include "cpu_runs.h"
#include "formats/registry.h"
#include "report_tables.h"

namespace account {
namespace {

// The Size -91.3 %* with interval -143..-91: on the difference scale
// the lowest difference (4 - 103) is -97.5 % of A's median and (1 - 103) is
// below -100 %. On the log scale the bounds are ratios: 1/103 and 4/100.
TEST(CompareChange, AShrinkIsARatioAndItsIntervalStaysAboveMinus100) {
  MetricChange c =
      metric_change(cpu_runs({100, 101, 102, 103}), cpu_runs({1, 2, 3, 4}), Metric::kCpu);
  EXPECT_TRUE(c.log_scale);
  EXPECT_EQ(c.estimate.verdict, Verdict::kBetter);
  EXPECT_NEAR(*c.change_pct, (2.5 / 101.5 - 1) * 100, 1e-12);
  EXPECT_NEAR(*c.low_pct, (1.0 / 103 - 1) * 100, 1e-12);
  EXPECT_NEAR(*c.high_pct, (4.0 / 100 - 1) * 100, 1e-12);
  EXPECT_GT(*c.low_pct, -100.0);
}

// With a 0 among the runs there is no log: the shift of the figures, whose
// interval in percent of A's median is cut at -100 % (no figure is below 0).
TEST(CompareChange, WithAZeroTheIntervalIsCutAtMinus100) {
  MetricChange c = metric_change(cpu_runs({0, 10, 12, 30}), cpu_runs({0, 0, 0, 0}), Metric::kCpu);
  EXPECT_FALSE(c.log_scale);
  EXPECT_EQ(*c.change_pct, -100.0);
  EXPECT_EQ(*c.low_pct, -100.0);         // -30 of a median of 11 would be -273 %
  EXPECT_NEAR(*c.high_pct, 0.0, 1e-12);  // 0 - 0
}

TEST(CompareChange, NonZeroDecimals) {
  EXPECT_EQ(nonzero_decimals(-0.019, 1), 2);
  EXPECT_EQ(nonzero_decimals(0.0017, 1), 3);
  EXPECT_EQ(nonzero_decimals(1.19e-5, 1), 5);
  EXPECT_EQ(nonzero_decimals(0.3, 1), 1);
  EXPECT_EQ(nonzero_decimals(0, 1), 1);
  EXPECT_EQ(percent_text(-0.019, true), "-0.02%");
  EXPECT_EQ(percent_text(-0.019), "0.0%");
  EXPECT_EQ(percent_text(0, true), "0.0%");
  EXPECT_EQ(percent_text(12.34, true), "+12.3%");
}

// The Malloc "0.0%*" for a -0.019 % change: in every run, so beyond
// noise, and printed "-0.02%*".
TEST(CompareChange, AFlaggedChangeShowsANonZeroDigit) {
  std::vector<std::vector<Operation>> inputs(2);
  inputs[0].push_back(Operation{"t", "clone", cpu_runs({1.0, 1.0, 1.0, 1.0}), false});
  inputs[1].push_back(
      Operation{"t", "clone", cpu_runs({0.99981, 0.99981, 0.99981, 0.99981}), false});
  Table t = compare_table({"a", "b"}, inputs);
  std::string text = render_table(Format::kTable, t);
  EXPECT_NE(text.find(" -0.02%* "), std::string::npos) << text;
  EXPECT_EQ(text.find("0.0%*"), std::string::npos) << text;
}

}  // namespace
}  // namespace account
