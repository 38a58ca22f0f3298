// Runs that differ only in CPU seconds: what the change and gate tests compare.
#pragma once

#include <vector>

#include "aggregate.h"

namespace account {

inline std::vector<RunFigures> cpu_runs(const std::vector<double>& cpu) {
  std::vector<RunFigures> runs;
  for (double c : cpu) {
    RunFigures r;
    r.cpu_s = c;
    runs.push_back(r);
  }
  return runs;
}

}  // namespace account
