/// How chrome-trace bounds its counter tracks (export_chrome_trace.cc): a
/// figure's budget of points shared by its tracks, and a track cut to its share
/// keeping the peaks, so a trace of many --timeline records stays loadable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace account {

/// A counter track: (ns, bytes) in time order.
using CounterSeries = std::vector<std::pair<uint64_t, uint64_t>>;

/// Each track's share of `budget` points over `tracks` tracks, never below
/// `floor` (a track of a few points stays drawn whatever the count).
size_t points_per_track(size_t budget, size_t tracks, size_t floor);

/// At most `cap` points: `s` cut into `cap` equal slices, each keeping its
/// highest point (the first of equals), so the peaks survive. `s` itself when
/// it has no more than `cap` points.
CounterSeries peak_thinned(CounterSeries s, size_t cap);

}  // namespace account
