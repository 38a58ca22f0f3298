// Per-thread counting: the hot path of every interposed call.
//
// A thread's first counted call claims a Slot in the process's Region (slow path,
// out of line); afterwards each call is a TLS load, a predictable branch and a few
// relaxed stores to a cache line no other thread writes.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "atomics.h"
#include "region.h"

namespace account {

// Net heap changes are published to the shared total once a thread's pending
// change reaches this size, so the total's cache line stays mostly read-only.
constexpr int64_t kHeapPublishBytes = 256 * 1024;

extern __thread Slot* tls_slot __attribute__((tls_model("initial-exec")));
extern Region* g_region;

Slot* claim_slot();  // slow path: first call on a thread

inline Slot* current_slot() {
  Slot* s = tls_slot;
  if (ACCOUNT_UNLIKELY(s == nullptr)) s = claim_slot();
  return s;
}

inline void bump(const Slot* s, uint64_t* field, uint64_t v) {
  if (ACCOUNT_LIKELY(!s->shared))
    store_relaxed(field, load_relaxed(field) + v);
  else
    fetch_add_relaxed(field, v);
}

void publish_heap(Slot* s);  // moves heap_pending into Region::heap_published

inline void heap_grow(Slot* s, int64_t bytes) {
  if (ACCOUNT_UNLIKELY(s->shared)) {
    int64_t live = fetch_add_relaxed(&g_region->heap_published, bytes) + bytes;
    raise_to(&s->heap_peak, live);
    return;
  }
  int64_t pending = load_relaxed(&s->heap_pending) + bytes;
  store_relaxed(&s->heap_pending, pending);
  // Exact for a single thread; otherwise short by other threads' unpublished bytes.
  int64_t live = load_relaxed(&g_region->heap_published) + pending;
  if (live > load_relaxed(&s->heap_peak)) store_relaxed(&s->heap_peak, live);
  if (ACCOUNT_UNLIKELY(pending >= kHeapPublishBytes)) publish_heap(s);
}

inline void heap_shrink(Slot* s, int64_t bytes) {
  if (ACCOUNT_UNLIKELY(s->shared)) {
    fetch_add_relaxed(&g_region->heap_published, -bytes);
    return;
  }
  int64_t pending = load_relaxed(&s->heap_pending) - bytes;
  store_relaxed(&s->heap_pending, pending);
  if (ACCOUNT_UNLIKELY(pending <= -kHeapPublishBytes)) publish_heap(s);
}

inline void count_copy(uint64_t bytes) {
  Slot* s = current_slot();
  bump(s, &s->copied_calls, 1);
  bump(s, &s->copied_bytes, bytes);
}

// Called in a fork child: a fresh region, the calling thread keeps counting.
void reset_region_after_fork();
// Makes the calling thread count into a private sink (the sampler process).
void detach_thread_from_region();

}  // namespace account
