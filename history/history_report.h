/// `account history` as a library call: the series of each operation by
/// commit and the change points found in them, as tables (text, CSV, JSON,
/// Markdown), and `--check`: the newest commit judged by compare's gate.
#pragma once

#include <string>
#include <vector>

#include "cell_text.h"
#include "commands/status.h"
#include "compare/compare_table.h"
#include "compare/gate.h"
#include "formats/registry.h"
#include "metric.h"
#include "series.h"
#include "sinks.h"

namespace account {

struct HistoryOptions {
  HistoryRange range;
  std::vector<Metric> metrics = {Metric::kCpu, Metric::kSize, Metric::kResident, Metric::kCopied,
                                 Metric::kMalloc};
  Format format = Format::kTable;
  bool svg = false;             ///< the picture alone, an SVG document (format unused)
  bool check = false;           ///< judge the newest commit with fail_on
  std::vector<Gate> fail_on;    ///< with check
  bool allow_unjudged = false;  ///< with check: what cannot be judged passes
};

/// One operation's change points of one metric.
struct SeriesChanges {
  const OperationSeries* series = nullptr;
  Metric metric = Metric::kCpu;
  bool counted = true;  ///< false: some run did not count the figure (no change points)
  std::vector<MetricChangePoint> changes;
};

/// The change points of every series for every metric in `metrics`.
std::vector<SeriesChanges> find_changes(const History& history, const std::vector<Metric>& metrics);

/// The table of figures by commit: one row per operation and commit.
Table history_table(const History& history, const std::vector<Metric>& metrics,
                    const std::vector<SeriesChanges>& changes);
/// The table of change points: one row per operation, metric and change point.
Table change_points_table(const std::vector<SeriesChanges>& changes);

/// The gate's figures for the newest commit: where a metric's newest segment
/// began with a change point, the segment before against it; `flat` counts
/// the gated figures with no change point (judged: nothing changed).
std::vector<GatedFigure> newest_commit_gates(const History& history,
                                             const std::vector<SeriesChanges>& changes,
                                             const std::vector<Gate>& gates, size_t* flat);

/// The output in options.format to *out; the exit status (0, or with check
/// 3 or 5 as compare's gate; 1 with one line to err on failure).
int run_history(Store& store, const HistoryOptions& options, std::string* out,
                const MessageSink& err);

}  // namespace account
