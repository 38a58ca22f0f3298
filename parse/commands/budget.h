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
/// `still_running`: processes of the run that outlived its command, whose
/// figures are not in `run` yet. A figure over its budget stays over (every
/// budget's figure only grows as processes end); one within it is not judged.
GateStatus judge_budgets(const RunFigures& run, const std::vector<Budget>& budgets,
                         size_t still_running, const MessageSink& err);

}  // namespace account
