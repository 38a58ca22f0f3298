/// The tables of `account report`: by operation, by host, by process, and the
/// percentiles of one figure, each built from the aggregation (aggregate.h)
/// with report_columns.h's pieces.
#pragma once

#include <vector>

#include "aggregate.h"
#include "metric.h"
#include "report_columns.h"
#include "table.h"

namespace account {

/// The Monotone-style table: one row per operation, medians over its counted
/// runs (counted_runs: failed ones only with include_failed), a Runs column in
/// the text table when some operation ran more than once, and an Exit column
/// with a footnote when a run failed.
Table operation_table(const std::vector<Operation>& ops, const ExtraColumns& extra = {},
                      bool include_failed = false);
/// `--by host`: the operation table with one row per host of each operation
/// (medians over that host's runs) and a Host column after the figures and
/// Runs ("(no host)" for records without one).
Table host_table(const std::vector<Operation>& ops, const ExtraColumns& extra = {},
                 bool include_failed = false);
/// One row per process image, under its operation (needs an Aggregator that
/// keeps processes).
Table process_table(const std::vector<Operation>& ops, const ExtraColumns& extra = {});
/// min, median, avg, p60, p70, p80, p90, p99, max of `metric` over each
/// operation's runs (linear interpolation between closest ranks).
Table percentile_table(const std::vector<Operation>& ops, Metric metric,
                       bool include_failed = false);

/// `--sort KEY`: each test's rows by the metric, largest first, and the tests
/// by their largest row (ties keep their order; rows without a figure last).
void sort_rows(Table& table, Metric metric);

/// The p-th percentile (0-100) of `values`, linear between closest ranks.
double percentile(std::vector<double> values, double p);

}  // namespace account
