#include "commands/budget.h"

#include <fmt/format.h>

#include "metric.h"

namespace account {

std::string budget_figure_names() {
  std::string names;
  for (const Figure& f : figures())
    if (f.unit == Unit::kBytes) names += (names.empty() ? "" : ", ") + std::string(f.name);
  return names;
}

GateStatus judge_budgets(const RunFigures& run, const std::vector<Budget>& budgets,
                         size_t still_running, const MessageSink& err) {
  GateStatus status = GateStatus::kPassed;
  const double mib = 1024.0 * 1024.0;
  for (const Budget& b : budgets) {
    const Figure& f = figure(b.metric);
    if (!metric_counted(run, b.metric)) {
      err(
          fmt::format("account run: {} is unknown (no process of the run was counted): its "
                      "budget of {:.2f} MiB cannot be judged\n",
                      f.name, b.limit_bytes / mib));
      if (status == GateStatus::kPassed) status = GateStatus::kNotJudged;
      continue;
    }
    double value = base_value(run, f);
    if (value <= double(b.limit_bytes)) {
      if (still_running == 0) continue;
      err(fmt::format(
          "account run: {} {:.2f} MiB is within its budget of {:.2f} MiB so far, but {} "
          "still running when the command ended {} not in it: not judged\n",
          f.name, value / mib, b.limit_bytes / mib, processes_phrase(still_running),
          still_running == 1 ? "is" : "are"));
      if (status == GateStatus::kPassed) status = GateStatus::kNotJudged;
      continue;
    }
    err(
        fmt::format("account run: {} {:.2f} MiB ({} bytes) is over its budget of {:.2f} MiB ({} "
                    "bytes)\n",
                    f.name, value / mib, uint64_t(value), b.limit_bytes / mib, b.limit_bytes));
    status = GateStatus::kFailed;
  }
  return status;
}

}  // namespace account
