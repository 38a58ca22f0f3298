#include "compare/holm.h"

#include <algorithm>
#include <numeric>

namespace account {

std::vector<double> holm_adjusted(const std::vector<double>& p) {
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<double> adjusted(p.size());
  double running = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    double scaled = std::min(1.0, double(p.size() - i) * p[order[i]]);
    running = std::max(running, scaled);  // step-down: never below an earlier step
    adjusted[order[i]] = running;
  }
  return adjusted;
}

}  // namespace account
