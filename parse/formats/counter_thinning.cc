#include "formats/counter_thinning.h"

#include <algorithm>

namespace account {

size_t points_per_track(size_t budget, size_t tracks, size_t floor) {
  return std::max(floor, budget / std::max<size_t>(tracks, 1));
}

CounterSeries peak_thinned(CounterSeries s, size_t cap) {
  if (s.size() <= cap) return s;
  CounterSeries out;
  out.reserve(cap);
  for (size_t b = 0; b < cap; ++b) {
    auto from = s.begin() + ptrdiff_t(s.size() * b / cap);
    auto to = s.begin() + ptrdiff_t(s.size() * (b + 1) / cap);
    out.push_back(*std::max_element(
        from, to, [](const auto& x, const auto& y) { return x.second < y.second; }));
  }
  return out;
}

}  // namespace account
