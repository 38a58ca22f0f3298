/// A bounded time series of samples: when full, every other point is dropped and
/// each later point covers twice as many samples (keeping the largest figures
/// seen in its span), so a run of any length keeps its whole shape in a fixed
/// number of points. Header-only and allocation-free: the storage is provided
/// by the caller (a shared mapping in the shim, a vector in the tool).
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "proc_files.h"

namespace account {

struct TimelinePoint {
  uint64_t t_us;          // since the start of the process
  uint64_t size_bytes;    // largest in the point's span
  uint64_t rss_bytes;     // largest in the point's span
  uint64_t malloc_bytes;  // counter at the end of the span
  uint64_t copied_bytes;  // counter at the end of the span
};

/// The one way a sample becomes a point: its time since the process started
/// (both on CLOCK_MONOTONIC), the memory statm gave, and the image's malloc and
/// copied counters where the shim counts them (0 for a process it does not).
inline TimelinePoint timeline_point(uint64_t start_mono_ns, uint64_t now_mono_ns,
                                    const MemoryNow& now, uint64_t malloc_bytes = 0,
                                    uint64_t copied_bytes = 0) {
  TimelinePoint p{};
  p.t_us = now_mono_ns > start_mono_ns ? (now_mono_ns - start_mono_ns) / 1000 : 0;
  p.size_bytes = now.size_bytes;
  p.rss_bytes = now.resident_bytes;
  p.malloc_bytes = malloc_bytes;
  p.copied_bytes = copied_bytes;
  return p;
}

struct TimelineState {
  uint32_t capacity;  // points the storage holds (even, >= 2)
  uint32_t count;     // points written
  uint32_t stride;    // samples per point
  uint32_t pending;   // samples folded into `current` so far
  TimelinePoint current;
};

inline void timeline_init(TimelineState* s, uint32_t capacity) {
  s->capacity = capacity < 2 ? 2 : capacity & ~1u;
  s->count = 0;
  s->stride = 1;
  s->pending = 0;
  s->current = TimelinePoint{};
}

inline void timeline_add(TimelineState* s, TimelinePoint* points, const TimelinePoint& sample) {
  TimelinePoint& c = s->current;
  if (s->pending == 0) {
    c = sample;
  } else {
    c.t_us = sample.t_us;
    if (sample.size_bytes > c.size_bytes) c.size_bytes = sample.size_bytes;
    if (sample.rss_bytes > c.rss_bytes) c.rss_bytes = sample.rss_bytes;
    c.malloc_bytes = sample.malloc_bytes;
    c.copied_bytes = sample.copied_bytes;
  }
  if (++s->pending < s->stride) return;
  s->pending = 0;
  if (s->count == s->capacity) {
    /// Halve the resolution: merge neighbours pairwise.
    for (uint32_t i = 0; i < s->capacity / 2; ++i) {
      TimelinePoint a = points[2 * i], b = points[2 * i + 1];
      points[i] = b;
      if (a.size_bytes > points[i].size_bytes) points[i].size_bytes = a.size_bytes;
      if (a.rss_bytes > points[i].rss_bytes) points[i].rss_bytes = a.rss_bytes;
    }
    s->count = s->capacity / 2;
    s->stride *= 2;
  }
  points[s->count++] = c;
}

}  // namespace account
