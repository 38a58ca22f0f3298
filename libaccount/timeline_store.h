/// The timeline of this process image, in a shared mapping written by the sampler
/// and read by whoever writes the record. Exists only with ACCOUNT_TIMELINE=1.
#pragma once

#include "text_buffer.h"
#include "timeline.h"

namespace account {

struct SharedTimeline {
  TimelineState state;
  uint32_t interval_ms;
  TimelinePoint points[1];  // state.capacity of them
};

extern SharedTimeline* g_timeline;

/// Bytes a timeline of `capacity` points maps.
size_t timeline_mapping_size(uint32_t capacity);

/// Maps a fresh timeline for this image (replacing an inherited one after fork).
void create_timeline(uint32_t capacity, uint32_t interval_ms);

/// "timeline":{...} as columns: t_ms, size, rss, malloc_bytes, copied_bytes.
void compose_timeline(TextBuffer& out, const SharedTimeline* timeline);
/// Another process's timeline state made safe to use with the capacity checked
/// against its mapping: count, stride and pending within their bounds.
void pin_timeline_state(TimelineState* state, uint32_t capacity);

}  // namespace account
