/// From records to chart data: which run of an operation is drawn, the
/// memory curves of its tree and of its largest processes, its processes as
/// timeline rows (an exec chain as one row), and the call tree of its large
/// allocations. Pure functions: the SVG drawing is svg_charts.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aggregate.h"
#include "backtrace_record.h"
#include "backtrace_report.h"
#include "formats/svg_charts.h"
#include "timeline_spool.h"

namespace account {

/// The run an operation's charts show: the one whose wall time is the median
/// (the lower of the middle two), so the picture is a typical run, not the
/// fastest or the slowest. nullopt without runs.
std::optional<size_t> drawn_run(const Operation& op);

/// Memory over time of one run (its process rows must carry their records):
/// the tree's resident and size (the sum over the processes alive at each
/// sampled instant, each at its latest sample) and the resident of the
/// `largest` processes by sampled resident peak. Empty series when no record
/// of the run has a timeline. Points a TimelineSpool took are read back from
/// `spool` for this chart only and released on return, so a page holds one
/// run's points at a time.
MemoryChartData memory_chart_of_run(const RunFigures& run, size_t largest = 4,
                                    const TimelineSpool* spool = nullptr);

/// One row per pid (the images of an exec chain in sequence on it), ordered by
/// start; beyond `max_rows`, the rest are grouped by program into one row
/// each, labelled with their count. Times in seconds since the run's first start.
std::vector<TimelineRow> timeline_of_run(const RunFigures& run, double* span_s,
                                         size_t max_rows = 60);

/// Two builds' call trees of (test, op) merged by frame name, each divided by
/// its number of runs (at least 1): bytes a run before and after.
IcicleDiffNode icicle_diff(const IcicleNode& before, size_t runs_before, const IcicleNode& after,
                           size_t runs_after);

/// The call tree of the large allocations of (test, op), root first ("all",
/// then main, ...), frames named as `account report --backtraces` names them.
IcicleNode icicle_of_operation(const std::vector<ProcessBacktraces>& processes,
                               const std::string& test, const std::string& op,
                               const SymbolTable& symbols);

}  // namespace account
