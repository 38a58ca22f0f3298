/// The three charts of the HTML report, each drawn as one standalone SVG
/// element from plain data: memory over time, the process timeline, and the
/// icicle of where large allocations come from. Hover text is in <title>
/// elements (shown by every browser without script).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/chart_geometry.h"

namespace account {

/// One curve: x in seconds since the operation's start, y in bytes.
struct MemorySeries {
  std::string name;
  std::vector<CurvePoint> points;
  bool emphasis = false;  ///< drawn thicker (the whole tree)
};

struct MemoryChartData {
  std::vector<MemorySeries> series;
  /// The kernel's peak (VmHWM/VmPeak) of the operation, marked with a
  /// horizontal rule when it is above every sampled point (a spike between
  /// two samples); 0: none.
  double kernel_peak_bytes = 0;
  std::string kernel_peak_label;
  size_t samples = 0;  ///< the readings behind the curves (for the "one sample" note)
  /// Some record carries a timeline, if without a sample (a run shorter than
  /// the interval): the note says so instead of asking for --timeline.
  bool timeline_recorded = false;
};

/// Width and height in CSS pixels; the SVG scales with its container.
std::string memory_chart_svg(const MemoryChartData& data, int width = 880, int height = 280);

/// One bar: a process image from its start to its end (seconds since the
/// operation's start), coloured by how it ended.
struct TimelineBar {
  double start_s = 0, end_s = 0;
  std::string label;    ///< drawn inside the bar when it fits
  std::string tooltip;  ///< argv and figures
  std::string end;      ///< exit, exec, killed, signal, running
};

/// One row: a process (an exec chain's images in sequence), a group of
/// processes beyond the row limit, or a heading (compare: a build's name
/// above its rows, on the axis all builds share).
struct TimelineRow {
  std::string label;
  std::vector<TimelineBar> bars;
  bool heading = false;
};

/// The rows on one time axis from 0 to span_s (seconds).
std::string process_timeline_svg(const std::vector<TimelineRow>& rows, double span_s,
                                 int width = 880);

/// A node of the allocation call tree: the root is "all", children are
/// callees (root first: main at the top).
struct IcicleNode {
  std::string name;
  uint64_t bytes = 0, calls = 0;
  std::vector<IcicleNode> children;
};

/// Frames as rows from the root down, widths by bytes, calls and bytes on hover.
std::string icicle_svg(const IcicleNode& root, int width = 880);

/// A node of two builds' allocation call trees merged by frame name: bytes a
/// run before and after.
struct IcicleDiffNode {
  std::string name;
  double before = 0, after = 0;
  std::vector<IcicleDiffNode> children;
};

/// The difference flame graph (icicle): widths by the larger of a frame's two
/// figures, so what shrank stays visible; red where it grew, blue where it
/// shrank, deeper the larger the change against its width; grey where equal.
std::string icicle_diff_svg(const IcicleDiffNode& root, int width = 880);

/// One figure of one operation in every build, as compare's table shows it.
struct CompareFigure {
  std::string title;  ///< the column's heading, "CPU (s)"
  struct Build {
    std::string name;
    double value = 0;  ///< bar length
    bool has_value = false;
    std::string text;    ///< the value as the table prints it
    std::string change;  ///< the change against the first build as printed ("+20.0%"), or ""
  };
  std::vector<Build> builds;
};

/// Per figure a small group of horizontal bars, one per build on one scale,
/// the value and the change printed after each bar.
std::string compare_bars_svg(const std::vector<CompareFigure>& figures, int width = 880);

/// The colour of a bar for an ending (also the legend's).
const char* end_colour(const std::string& end);

}  // namespace account
