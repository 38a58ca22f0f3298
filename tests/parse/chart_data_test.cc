// From hand-written records to chart data: the drawn run, the exec-chain
// rows, grouping beyond the row limit, the summed memory curve, the kernel
// peak mark, a run without timeline, and the allocation call tree.
#include "formats/chart_data.h"

#include <gtest/gtest.h>

#include <memory>

namespace account {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kMs = 1000 * 1000;  // in ns

ProcessRecord process(int64_t pid, const std::string& argv0, uint64_t start_ms, uint64_t end_ms,
                      const std::string& end) {
  ProcessRecord r;
  r.pid = pid;
  r.exe = "/usr/bin/" + argv0;
  r.argv = {argv0, "--flag"};
  r.start_ns = 5000 * kMs + start_ms * kMs;  // the run's origin is its first start
  r.end_ns = 5000 * kMs + end_ms * kMs;
  r.end = end;
  if (end == "exit") r.exit_code = 0;
  if (end == "killed" || end == "signal") r.signal = 9;
  return r;
}

void add_timeline(ProcessRecord* r, std::vector<double> t_ms, std::vector<uint64_t> rss_mib) {
  Timeline tl;
  tl.t_ms = std::move(t_ms);
  for (uint64_t v : rss_mib) {
    tl.rss_bytes.push_back(v * kMiB);
    tl.size_bytes.push_back((v + 100) * kMiB);
  }
  r->timeline = tl;
  for (uint64_t v : rss_mib) r->sampled_rss_peak_bytes = std::max(r->sampled_rss_peak_bytes, v);
  r->sampled_rss_peak_bytes *= kMiB;
}

RunFigures run_of(const std::vector<ProcessRecord>& records) {
  RunFigures run;
  for (const ProcessRecord& r : records) {
    ProcessRow row;
    row.pid = r.pid;
    row.record = std::make_shared<const ProcessRecord>(r);
    run.process_rows.push_back(row);
  }
  return run;
}

TEST(ChartData, DrawnRunIsTheMedianWallTheLowerOfTheMiddleTwo) {
  Operation op;
  EXPECT_EQ(drawn_run(op), std::nullopt);
  for (double wall : {3.0, 1.0, 2.0}) op.runs.push_back(RunFigures{}), op.runs.back().wall_s = wall;
  EXPECT_EQ(drawn_run(op), 2u);  // 1, 2, 3: the run of 2 s
  op.runs.push_back(RunFigures{});
  op.runs.back().wall_s = 4.0;
  EXPECT_EQ(drawn_run(op), 2u);  // 1, 2, 3, 4: the lower middle, 2 s
}

TEST(ChartData, AnExecChainIsOneRowWithItsImagesInSequence) {
  // sh -c 'git clone' execs git (pid 10); git forks upload-pack (pid 11), killed.
  ProcessRecord sh = process(10, "sh", 0, 100, "exec");
  ProcessRecord git = process(10, "git", 100, 500, "exit");
  ProcessRecord pack = process(11, "git-upload-pack", 200, 400, "killed");
  double span = 0;
  std::vector<TimelineRow> rows = timeline_of_run(run_of({pack, git, sh}), &span);
  EXPECT_DOUBLE_EQ(span, 0.5);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "git 10");  // the chain is named by its last image
  ASSERT_EQ(rows[0].bars.size(), 2u);
  EXPECT_EQ(rows[0].bars[0].label, "sh");
  EXPECT_EQ(rows[0].bars[0].end, "exec");
  EXPECT_DOUBLE_EQ(rows[0].bars[0].start_s, 0.0);
  EXPECT_DOUBLE_EQ(rows[0].bars[0].end_s, 0.1);
  EXPECT_EQ(rows[0].bars[1].label, "git");
  EXPECT_EQ(rows[0].bars[1].end, "exit");
  EXPECT_DOUBLE_EQ(rows[0].bars[1].start_s, 0.1);
  EXPECT_DOUBLE_EQ(rows[0].bars[1].end_s, 0.5);
  EXPECT_EQ(rows[1].label, "git-upload-pack 11");
  EXPECT_EQ(rows[1].bars[0].end, "killed");
  // The tooltip: the argv as recorded, how it ended, the figures.
  EXPECT_EQ(rows[1].bars[0].tooltip,
            "git-upload-pack --flag\npid 11, killed (signal 9)\n0.200 s, cpu 0.000 s, peak "
            "resident 0.00 MiB, size 0.00 MiB\nmalloc 0.00 MiB, copied 0.00 MiB");
}

// A figure nobody counted is unknown in a tooltip too: a watched process's
// copies and allocations, and the allocations of a process whose malloc was
// not the shim's (its copies are counted).
TEST(ChartData, ATooltipSaysUnknownForWhatNobodyCounted) {
  ProcessRecord watched = process(10, "server", 0, 100, "exit");
  watched.counted = false;
  ProcessRecord own = process(11, "own", 0, 100, "exit");
  own.malloc_interposed = false;
  own.copied_bytes = 3 * kMiB;
  double span = 0;
  std::vector<TimelineRow> rows = timeline_of_run(run_of({watched, own}), &span);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0].bars[0].tooltip.find("\nmalloc \u2013 MiB, copied \u2013 MiB"),
            std::string::npos)
      << rows[0].bars[0].tooltip;
  EXPECT_NE(rows[1].bars[0].tooltip.find("\nmalloc \u2013 MiB, copied 3.00 MiB"),
            std::string::npos)
      << rows[1].bars[0].tooltip;
}

TEST(ChartData, ColoursSayHowEachImageEnded) {
  EXPECT_STREQ(end_colour("exit"), "#4e79a7");
  EXPECT_STREQ(end_colour("exec"), "#76b7b2");
  EXPECT_STREQ(end_colour("killed"), "#e15759");
  EXPECT_STREQ(end_colour("signal"), "#f28e2b");
  EXPECT_STREQ(end_colour("running"), "#9c755f");
}

TEST(ChartData, AMultiCallProgramIsNamedWithItsSubcommand) {
  ProcessRecord pack = process(11, "git", 0, 100, "exit");
  pack.argv = {"/usr/lib/git-core/git", "upload-pack", "--strict", "."};
  ProcessRecord cat = process(12, "cat", 0, 100, "exit");
  cat.argv = {"cat", "file.txt"};
  double span = 0;
  std::vector<TimelineRow> rows = timeline_of_run(run_of({pack, cat}), &span);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "git upload-pack 11");
  EXPECT_EQ(rows[1].label, "cat 12");
}

TEST(ChartData, AReusedPidIsANewRow) {
  ProcessRecord first = process(10, "cat", 0, 100, "exit");
  ProcessRecord second = process(10, "grep", 300, 400, "exit");
  double span = 0;
  std::vector<TimelineRow> rows = timeline_of_run(run_of({first, second}), &span);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].label, "cat 10");
  EXPECT_EQ(rows[1].label, "grep 10");
}

TEST(ChartData, BeyondTheRowLimitProcessesAreGroupedByProgramWithACount) {
  std::vector<ProcessRecord> records = {process(1, "make", 0, 1000, "exit")};
  for (int i = 0; i < 4; ++i) records.push_back(process(100 + i, "cc1", 10 + i, 20 + i, "exit"));
  for (int i = 0; i < 3; ++i) records.push_back(process(200 + i, "as", 30 + i, 40 + i, "exit"));
  double span = 0;
  std::vector<TimelineRow> rows = timeline_of_run(run_of(records), &span, 3);
  ASSERT_EQ(rows.size(), 4u);  // two rows kept, then one per program
  EXPECT_EQ(rows[0].label, "make 1");
  EXPECT_EQ(rows[1].label, "cc1 100");
  EXPECT_EQ(rows[2].label, "cc1 ×3");
  // Three overlapping images of a grouped row are one bar with their count.
  ASSERT_EQ(rows[2].bars.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[2].bars[0].start_s, 0.011);
  EXPECT_DOUBLE_EQ(rows[2].bars[0].end_s, 0.023);
  EXPECT_EQ(rows[2].bars[0].tooltip,
            "3 images of cc1 that ended by exit, from 0.011 s to 0.023 s\n"
            "cpu 0.000 s in all, largest peak resident 0.00 MiB");
  EXPECT_EQ(rows[3].label, "as ×3");
  EXPECT_EQ(rows[3].bars.size(), 1u);
  // At the limit nothing is grouped.
  EXPECT_EQ(timeline_of_run(run_of(records), &span, 8).size(), 8u);
}

// A grouped row merges only images of one ending that overlap or are closer
// than 1/2000 of the run (here 0.5 ms of 1 s): a gap of 1 ms stays a gap, a
// killed image between exits keeps its own colour.
TEST(ChartData, AGroupedRowMergesOnlyOverlapsOfOneEnding) {
  std::vector<ProcessRecord> records = {process(1, "make", 0, 1000, "exit"),
                                        process(2, "sh", 0, 1, "exit")};
  records.push_back(process(100, "cc1", 100, 110, "exit"));
  records.push_back(process(101, "cc1", 105, 108, "killed"));
  records.push_back(process(102, "cc1", 108, 115, "exit"));
  records.push_back(process(103, "cc1", 116, 120, "exit"));
  records.back().cpu_user_s = 0.25;
  double span = 0;
  std::vector<TimelineRow> rows = timeline_of_run(run_of(records), &span, 2);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[2].label, "cc1 ×4");
  ASSERT_EQ(rows[2].bars.size(), 3u);
  EXPECT_EQ(rows[2].bars[0].end, "exit");  // 100-110 and 108-115
  EXPECT_DOUBLE_EQ(rows[2].bars[0].end_s, 0.115);
  EXPECT_EQ(rows[2].bars[1].end, "killed");
  EXPECT_EQ(rows[2].bars[1].tooltip.rfind("cc1 --flag\npid 101, killed", 0), 0u);
  EXPECT_EQ(rows[2].bars[2].end, "exit");  // 116-120, alone: its own tooltip
  EXPECT_DOUBLE_EQ(rows[2].bars[2].start_s, 0.116);
  EXPECT_EQ(rows[2].bars[2].tooltip.rfind("cc1 --flag\npid 103, exit 0\n0.004 s, cpu 0.250 s", 0),
            0u);
}

TEST(ChartData, TheTreeCurveIsTheSumOfTheLatestSamplesOfTheLiveProcesses) {
  ProcessRecord a = process(1, "git", 0, 25, "exit");
  add_timeline(&a, {0, 10, 20}, {1, 3, 2});
  ProcessRecord b = process(2, "git-pack-objects", 5, 20, "exit");
  add_timeline(&b, {0, 10}, {4, 5});
  MemoryChartData d = memory_chart_of_run(run_of({a, b}));
  ASSERT_GE(d.series.size(), 2u);
  EXPECT_EQ(d.samples, 5u);
  EXPECT_EQ(d.series[0].name, "whole tree, resident");
  EXPECT_TRUE(d.series[0].emphasis);
  struct Expected {
    double t, mib;
  };
  // b ends at 20 ms, where a samples too: the sum with b's last reading, then without it;
  // a ends at 25 ms: a vertical drop from its last reading.
  std::vector<Expected> want = {{0, 1},     {0.005, 5}, {0.010, 7}, {0.015, 8},
                                {0.020, 7}, {0.020, 2}, {0.025, 2}, {0.025, 0}};
  ASSERT_EQ(d.series[0].points.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(d.series[0].points[i].x, want[i].t, 1e-9) << i;
    EXPECT_EQ(d.series[0].points[i].y, want[i].mib * kMiB) << i;
  }
  EXPECT_EQ(d.series[1].name, "whole tree, size");
  EXPECT_EQ(d.series[1].points[3].y, 208.0 * kMiB);  // (3 + 100) + (5 + 100) at 15 ms
  // Then the largest processes by sampled resident peak, on their own.
  ASSERT_EQ(d.series.size(), 4u);
  EXPECT_EQ(d.series[2].name, "git-pack-objects (pid 2), resident");
  EXPECT_EQ(d.series[3].name, "git (pid 1), resident");
  EXPECT_EQ(d.series[3].points.size(), 3u);
}

TEST(ChartData, ASpooledRunIsDrawnFromItsPointsReadBack) {
  ProcessRecord a = process(1, "git", 0, 25, "exit");
  add_timeline(&a, {0, 10, 20}, {1, 3, 2});
  ProcessRecord b = process(2, "git-pack-objects", 5, 20, "exit");
  add_timeline(&b, {0, 10}, {4, 5});
  ProcessRecord c = process(3, "true", 1, 2, "exit");  // no timeline: nothing to read back
  MemoryChartData held = memory_chart_of_run(run_of({a, b, c}));
  TimelineSpool spool;
  spool.put(*a.timeline);
  spool.put(*b.timeline);
  ASSERT_TRUE(a.timeline->t_ms.empty());  // the points are on disk now
  RunFigures run = run_of({a, b, c});
  EXPECT_TRUE(memory_chart_of_run(run).series.empty());  // without the spool: no points
  MemoryChartData read = memory_chart_of_run(run, 4, &spool);
  EXPECT_EQ(read.samples, 5u);
  ASSERT_EQ(read.series.size(), held.series.size());
  for (size_t i = 0; i < held.series.size(); ++i) {
    EXPECT_EQ(read.series[i].name, held.series[i].name) << i;
    ASSERT_EQ(read.series[i].points.size(), held.series[i].points.size()) << i;
    for (size_t k = 0; k < held.series[i].points.size(); ++k) {
      EXPECT_EQ(read.series[i].points[k].x, held.series[i].points[k].x) << i << " " << k;
      EXPECT_EQ(read.series[i].points[k].y, held.series[i].points[k].y) << i << " " << k;
    }
  }
  // The run's records keep no points after the chart: each section holds its own only.
  EXPECT_TRUE(run.process_rows[0].record->timeline->t_ms.empty());
}

TEST(ChartData, TheKernelPeakIsMarkedWhereItIsAboveTheSampledResidentCurve) {
  ProcessRecord a = process(1, "git", 0, 25, "exit");
  add_timeline(&a, {0, 10, 20}, {1, 3, 2});
  a.rss_peak_bytes = 9 * kMiB;  // a spike between two samples (the size curve is far above)
  MemoryChartData d = memory_chart_of_run(run_of({a}));
  EXPECT_EQ(d.kernel_peak_bytes, 9.0 * kMiB);
  EXPECT_EQ(d.kernel_peak_label, "kernel resident peak of git (VmHWM)");
  a.rss_peak_bytes = 3 * kMiB;  // what the sampler saw: nothing to mark
  EXPECT_EQ(memory_chart_of_run(run_of({a})).kernel_peak_bytes, 0);
}

TEST(ChartData, ARunWithoutTimelineHasNoCurve) {
  ProcessRecord a = process(1, "git", 0, 25, "exit");
  EXPECT_TRUE(memory_chart_of_run(run_of({a})).series.empty());
  EXPECT_TRUE(memory_chart_of_run(RunFigures{}).series.empty());
}

TEST(ChartData, TheIcicleIsRootFirstWithBytesAndCallsSummed) {
  ProcessBacktraces p;
  p.test = "t";
  p.op = "clone";
  p.modules.push_back({"/usr/bin/git", 0x1000, 0x1000, 0x9000, ""});
  // Innermost first, as recorded: xmalloc <- read_index <- main.
  p.groups.push_back({2, 6 * kMiB, 4 * kMiB, {0x1101, 0x1201, 0x1301}});
  p.groups.push_back({1, 2 * kMiB, 2 * kMiB, {0x1101, 0x1401, 0x1301}});
  p.groups.push_back({5, 1 * kMiB, 1 * kMiB, {0x7000000}});  // in no module
  p.other = OtherAllocations{3, 7, 3 * kMiB, kMiB};
  SymbolTable symbols;
  symbols[{"/usr/bin/git", 0x100}] = {"xmalloc", "wrapper.c:10"};
  symbols[{"/usr/bin/git", 0x200}] = {"read_index", ""};
  symbols[{"/usr/bin/git", 0x300}] = {"main", ""};
  // 0x400 unknown: named by module and offset as report --backtraces does.
  ProcessBacktraces elsewhere = p;
  elsewhere.op = "other";
  IcicleNode root = icicle_of_operation({p, elsewhere}, "t", "clone", symbols);
  EXPECT_EQ(root.name, "all");
  EXPECT_EQ(root.bytes, 12 * kMiB);
  EXPECT_EQ(root.calls, 15u);
  ASSERT_EQ(root.children.size(), 3u);
  EXPECT_EQ(root.children[0].name, "main");
  EXPECT_EQ(root.children[0].bytes, 8 * kMiB);
  EXPECT_EQ(root.children[0].calls, 3u);
  ASSERT_EQ(root.children[0].children.size(), 2u);
  EXPECT_EQ(root.children[0].children[0].name, "read_index");
  EXPECT_EQ(root.children[0].children[0].children[0].name, "xmalloc");
  EXPECT_EQ(root.children[0].children[1].name, "git+0x401");
  EXPECT_EQ(root.children[1].name, "(call stacks not kept in the record)");
  EXPECT_EQ(root.children[1].bytes, 3 * kMiB);
  EXPECT_EQ(root.children[2].name, "0x7000000");
}

}  // namespace
}  // namespace account

namespace account {
namespace {

TEST(ChartData, TheDifferenceTreeIsBytesARunMergedByName) {
  IcicleNode before{"all", 300, 3, {{"main", 300, 3, {{"a", 240, 2, {}}, {"b", 60, 1, {}}}}}};
  IcicleNode after{"all", 150, 2, {{"main", 150, 2, {{"a", 50, 1, {}}, {"c", 100, 1, {}}}}}};
  IcicleDiffNode d = icicle_diff(before, 3, after, 1);
  EXPECT_EQ(d.before, 100);
  EXPECT_EQ(d.after, 150);
  ASSERT_EQ(d.children.size(), 1u);
  const IcicleDiffNode& main = d.children[0];
  ASSERT_EQ(main.children.size(), 3u);
  // Largest of the two figures first: c (100), a (80 -> 50), b (20 -> 0).
  EXPECT_EQ(main.children[0].name, "c");
  EXPECT_EQ(main.children[0].before, 0);
  EXPECT_EQ(main.children[0].after, 100);
  EXPECT_EQ(main.children[1].name, "a");
  EXPECT_EQ(main.children[1].before, 80);
  EXPECT_EQ(main.children[1].after, 50);
  EXPECT_EQ(main.children[2].name, "b");
  EXPECT_EQ(main.children[2].after, 0);
}

}  // namespace
}  // namespace account
