// The three charts as SVG: a golden file for a small fixed input each, and
// the properties a reader relies on (every series drawn, the kernel peak
// marked only above the samples, bars placed by time, widths by bytes).
#include "formats/svg_charts.h"

#include <gtest/gtest.h>

#include <regex>

#include "golden.h"

namespace account {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

MemoryChartData small_memory() {
  MemoryChartData d;
  MemorySeries tree{"whole tree, resident", {}, true};
  MemorySeries git{"git clone (pid 10), resident", {}, false};
  for (int i = 0; i <= 20; ++i) {
    tree.points.push_back({i * 0.05, (10 + i * (20 - i) / 4.0) * kMiB});
    git.points.push_back({i * 0.05, (6 + i * (20 - i) / 8.0) * kMiB});
  }
  d.series = {tree, git};
  d.kernel_peak_bytes = 48 * kMiB;
  d.kernel_peak_label = "kernel peak (VmHWM)";
  return d;
}

TEST(SvgCharts, MemoryChartGolden) {
  testing::expect_golden("memory-chart.svg", memory_chart_svg(small_memory()));
}

TEST(SvgCharts, KernelPeakMarkedOnlyAboveTheSamples) {
  MemoryChartData d = small_memory();
  EXPECT_NE(memory_chart_svg(d).find("kernel peak (VmHWM): 48.00 MiB"), std::string::npos);
  d.kernel_peak_bytes = 20 * kMiB;  // below the sampled maximum (35 MiB): nothing to mark
  EXPECT_EQ(memory_chart_svg(d).find("kernel peak"), std::string::npos);
}

TEST(SvgCharts, EverySeriesHasAPathAndALegendEntry) {
  std::string svg = memory_chart_svg(small_memory());
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 0, true);
  std::regex path("<path d=\"M");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(svg.begin(), svg.end(), path), std::sregex_iterator()), 2);
  EXPECT_NE(svg.find(">whole tree, resident</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>git clone (pid 10), resident: peak 18.50 MiB</title>"),
            std::string::npos);
}

std::vector<TimelineRow> small_timeline() {
  return {
      {"git daemon", {{0.0, 1.0, "git daemon", "git daemon --export-all\nexit 0", "exit"}}},
      {"git clone",
       {{0.1, 0.3, "sh", "sh -c git clone ...\nexec", "exec"},
        {0.3, 0.9, "git clone", "git clone git://...\nexit 0", "exit"}}},
      {"upload-pack", {{0.4, 0.8, "upload-pack", "git upload-pack\nkilled", "killed"}}},
  };
}

TEST(SvgCharts, ProcessTimelineGolden) {
  testing::expect_golden("process-timeline.svg", process_timeline_svg(small_timeline(), 1.0));
}

TEST(SvgCharts, TimelineBarsArePlacedByTimeAndColouredByEnd) {
  std::string svg = process_timeline_svg(small_timeline(), 1.0, 880);
  // 170 px of labels, 16 px margin: 0.3 s is at 170 + 0.3 * 694 = 378.2.
  EXPECT_NE(svg.find("<rect x=\"378.2\" y=\"28\" width=\"416.4\" height=\"14\" fill=\"#4e79a7\""),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("fill=\"#e15759\" rx=\"2\"><title>git upload-pack\nkilled</title>"),
            std::string::npos);
}

// compare's shared timeline: a heading row per build, its rows under it, all
// on the one axis of the longest run.
TEST(SvgCharts, TimelineHeadingsAndRowsShareOneAxis) {
  TimelineRow a{"A", {}, true}, b{"B", {}, true};
  TimelineRow a_git{"git clone", {{0, 1.0, "git clone", "git clone (A)", "exit"}}};
  TimelineRow b_git{"git clone", {{0, 2.0, "git clone", "git clone (B)", "exit"}}};
  std::string svg = process_timeline_svg({a, a_git, b, b_git}, 2.0, 880);
  // The headings: bold, at the left edge, a rule above each; no bar of their own.
  EXPECT_NE(svg.find("<text x=\"0\" y=\"21\" fill=\"#222\" font-weight=\"600\">A</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<text x=\"0\" y=\"57\" fill=\"#222\" font-weight=\"600\">B</text>"),
            std::string::npos);
  std::regex bar("<rect x=\"170\" y=\"[0-9.]+\" width=\"([0-9.]+)\" height=\"14\"");
  std::vector<double> widths;
  for (auto m = std::sregex_iterator(svg.begin(), svg.end(), bar); m != std::sregex_iterator(); ++m)
    widths.push_back(std::stod((*m)[1]));
  // 694 px for 2 s: A's 1-s clone is half of B's 2-s one.
  EXPECT_EQ(widths, (std::vector<double>{347, 694}));
  EXPECT_NE(svg.find("data-zoom=\"170 864 0 2\""), std::string::npos);
}

IcicleNode small_icicle() {
  IcicleNode root{"all", 100 * 1048576, 30, {}};
  IcicleNode main{"main", 100 * 1048576, 30, {}};
  main.children.push_back({"read_index", 75 * 1048576, 10, {{"xmalloc", 75 * 1048576, 10, {}}}});
  main.children.push_back({"pack_objects", 25 * 1048576, 20, {}});
  root.children.push_back(main);
  return root;
}

TEST(SvgCharts, IcicleGolden) {
  testing::expect_golden("icicle.svg", icicle_svg(small_icicle()));
}

TEST(SvgCharts, IcicleWidthsAreByBytes) {
  std::string svg = icicle_svg(small_icicle(), 880);
  // 876 px for all bytes: read_index is 3/4 of it, pack_objects the last quarter.
  EXPECT_NE(svg.find("<rect x=\"2\" y=\"40\" width=\"657\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<rect x=\"659\" y=\"40\" width=\"219\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<title>pack_objects\n25.00 MiB in 20 calls (25.0 % of all)</title>"),
            std::string::npos);
}

}  // namespace
}  // namespace account

namespace account {
namespace {

TEST(SvgCharts, DifferenceIcicleWidthsByTheLargerFigureColoursByTheChange) {
  // keep grew 0 -> 25 MiB, read shrank 75 -> 50, pack equal at 25.
  IcicleDiffNode root{"all", 100 * 1048576.0, 100 * 1048576.0, {}};
  root.children.push_back({"read", 75 * 1048576.0, 50 * 1048576.0, {}});
  root.children.push_back({"pack", 25 * 1048576.0, 25 * 1048576.0, {}});
  root.children.push_back({"keep", 0, 25 * 1048576.0, {}});
  std::string svg = icicle_diff_svg(root, 880);
  // 876 px for the root's 100 MiB; the children's larger figures sum to 125
  // MiB: 60 %, 20 %, 20 % of it.
  EXPECT_NE(
      svg.find("<rect x=\"2\" y=\"22\" width=\"525.6\" height=\"17\" fill=\"hsl(215,80%,75%)\""),
      std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<rect x=\"527.6\" y=\"22\" width=\"175.2\" height=\"17\" fill=\"#d9d4cf\""),
            std::string::npos)
      << svg;
  EXPECT_NE(
      svg.find("<rect x=\"702.8\" y=\"22\" width=\"175.2\" height=\"17\" fill=\"hsl(4,80%,48%)\""),
      std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<title>keep\n0.00 MiB -&gt; 25.00 MiB a run (+25.00 MiB)</title>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("aria-label=\"allocations by call stack: what grew and shrank\""),
            std::string::npos);
}

}  // namespace
}  // namespace account
