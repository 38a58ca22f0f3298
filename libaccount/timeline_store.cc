#include "timeline_store.h"

#include <sys/mman.h>

#include "counters.h"
#include "image_file.h"

namespace account {

SharedTimeline* g_timeline = nullptr;

size_t timeline_mapping_size(uint32_t capacity) {
  return sizeof(SharedTimeline) + (capacity - 1) * sizeof(TimelinePoint);
}

void create_timeline(uint32_t capacity, uint32_t interval_ms) {
  if (g_timeline) {
    munmap(g_timeline, timeline_mapping_size(g_timeline->state.capacity));
    g_timeline = nullptr;
  }
  uint64_t offset;
  void* p = map_image_part(timeline_mapping_size(capacity), &offset);
  if (!p) return;
  SharedTimeline* t = static_cast<SharedTimeline*>(p);
  timeline_init(&t->state, capacity);
  t->interval_ms = interval_ms;
  g_timeline = t;
  if (offset && g_region) __atomic_store_n(&g_region->timeline_offset, offset, __ATOMIC_RELEASE);
}

void pin_timeline_state(TimelineState* s, uint32_t capacity) {
  s->capacity = capacity;
  if (s->count > capacity) s->count = capacity;
  if (s->stride == 0) s->stride = 1;
  if (s->pending >= s->stride) s->pending = 0;
}

void compose_timeline(TextBuffer& out, const SharedTimeline* t) {
  uint32_t n = __atomic_load_n(&t->state.count, __ATOMIC_ACQUIRE);
  out.key("timeline");
  out.begin_object();
  out.field("interval_ms", t->interval_ms);
  out.field("samples_per_point", t->state.stride);
  struct Column {
    const char* name;
    uint64_t TimelinePoint::*member;
    bool as_ms;
  };
  const Column columns[] = {{"t_ms", &TimelinePoint::t_us, true},
                            {"size", &TimelinePoint::size_bytes, false},
                            {"rss", &TimelinePoint::rss_bytes, false},
                            {"malloc_bytes", &TimelinePoint::malloc_bytes, false},
                            {"copied_bytes", &TimelinePoint::copied_bytes, false}};
  for (const Column& c : columns) {
    out.key(c.name);
    out.put('[');
    for (uint32_t i = 0; i < n; ++i) {
      if (i) out.put(',');
      uint64_t v = t->points[i].*c.member;
      if (c.as_ms)
        out.put_fixed(v, 3);  // microseconds shown as milliseconds
      else
        out.put_uint(v);
    }
    out.put(']');
  }
  out.end_object();
}

}  // namespace account
