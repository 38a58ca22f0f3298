/// Budgets on a run's figures (`account run --budget malloc=10M,copied=1M`):
/// a run is over a budget when its figure, as the report computes it, is above
/// the limit; a figure nobody counted cannot be judged. docs/budgets.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aggregate.h"
#include "commands/status.h"
#include "figures.h"

namespace account {

struct Budget {
  Metric metric;
  uint64_t limit_bytes;
};

/// The byte figures a budget can be on ("size, resident, anon, heap, copied, malloc").
std::string budget_figure_names();

/// One line per figure over its budget or not judged, to `err`; kFailed when
/// one is over, else kNotJudged when one is unknown, else kPassed.
GateStatus judge_budgets(const RunFigures& run, const std::vector<Budget>& budgets,
                         const MessageSink& err);

}  // namespace account
