/// `account compare`'s table: each build's row of an operation, then each
/// later build's change against the first, and what the gate is given.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "aggregate.h"
#include "compare/gate.h"
#include "metric.h"
#include "report_columns.h"
#include "table.h"

namespace account {

/// What compare found besides the table.
struct CompareFindings {
  std::vector<std::string> refusals;  ///< no change computed: a side has no counted run (a line)
  std::vector<GatedFigure> gated;     ///< every gate on every pair of inputs (gate.h)
};

/// "+2.1..+9.4": a change's interval in percent as compare's table prints it,
/// as short as its size allows; the bounds of a change beyond noise with the
/// digits they need not to read 0; "exact" where no run varies.
std::string interval_text(const MetricChange& c);

/// For each operation in any input: a row per input that has it, then for each
/// later input its change against the first (change.h): the change of
/// the medians in percent with a verdict mark, an interval row for people, and
/// the interval, verdict and method of each figure in CSV and JSON fields.
/// `gates` (--fail-on) are applied to every operation of every pair (the
/// first input and a later one) into findings->gated: judged where both sides
/// have enough counted runs, otherwise with the reason and the fix.
/// `sort` (--sort KEY): each test's operations by the largest of their inputs'
/// figures, largest first, and the tests by their largest operation; an
/// operation's rows stay together.
Table compare_table(const std::vector<std::string>& names,
                    const std::vector<std::vector<Operation>>& inputs,
                    const ExtraColumns& extra = {}, bool include_failed = false,
                    const std::vector<Gate>& gates = {}, CompareFindings* findings = nullptr,
                    std::optional<Metric> sort = std::nullopt);

}  // namespace account
