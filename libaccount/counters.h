/// Per-thread counting: the hot path of every interposed call.
///
/// A thread's first counted call claims a Slot in the process's Region (slow path,
/// out of line); afterwards each call is a TLS load, one test of the slot's detour
/// bits and a few single-instruction adds to a cache line no other thread writes.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "atomics.h"
#include "region.h"

namespace account {

/// Every thread starts on g_unclaimed_slot (all detour bits set, never written):
/// the fast paths need no NULL test, and the slow path claims a real slot.
extern Slot g_unclaimed_slot;
extern __thread Slot* tls_slot __attribute__((tls_model("initial-exec")));
extern Region* g_region;

/// What libc's own copies (libc_copies.h) must do on this thread besides being
/// counted in its owned slot: while any bit is set they take the slow path.
constexpr uint32_t kLibcDetourUnowned = 1;    // no owned slot: unclaimed, or the shared slot
constexpr uint32_t kLibcDetourAllocator = 2;  // inside realloc: its move is realloc_copied_bytes
constexpr uint32_t kLibcDetourFork = 4;  // fork under way: the child's tls_slot is the parent's
extern __thread uint32_t tls_libc_detour __attribute__((tls_model("initial-exec")));

Slot* claim_slot();  // slow path: first call on a thread

inline Slot* current_slot() {
  Slot* s = tls_slot;
  if (ACCOUNT_UNLIKELY(s == &g_unclaimed_slot)) s = claim_slot();
  return s;
}

/// Sets or clears kDetourHeap on every owned slot and on those claimed later:
/// after the usable-size check and whenever backtraces start or stop.
void set_heap_detour(bool on);

void publish_heap(Slot* s);  // moves pending into Region::heap_published

/// Owned slot only, out of line: publishes pending if it is kHeapPublishBytes
/// either way, raises heap_peak if the live heap (published + own pending) is
/// above it, and sets heap_grow_room to the growth that needs no new look.
void heap_sync(Slot* s);

/// A new account_peak_reset(ACCOUNT_PROCESS) window for the slot's heap_peak,
/// starting at `live`: by its owner in heap_sync, for the shared slot by the reset.
void start_peak_epoch(Slot* s, uint32_t epoch, int64_t live);

/// Raises a slot's largest single request. Owned slot only: one compare that
/// is nearly always false (a new largest block is rare).
inline void note_request(Slot* s, uint64_t requested) {
  if (ACCOUNT_UNLIKELY(int64_t(requested) > load_relaxed(&s->largest_request)))
    raise_owned(&s->largest_request, int64_t(requested));
}

/// The shared slot's counterparts of the functions below (atomic RMW), out of line.
void count_alloc_shared(Slot* s, uint64_t requested, int64_t usable_bytes);
void count_free_shared(Slot* s, int64_t usable_bytes);
void count_copy_shared(Slot* s, uint64_t bytes);
void count_realloc_shared(Slot* s, uint64_t requested, int64_t old_usable, int64_t new_usable,
                          uint64_t moved);

/// Owned slot only. A block's growth moves pending first and the room after; a
/// shrink, the room first and pending after. A signal handler that counts in
/// between then finds the room too small, never too large: it can cause an
/// early heap_sync, never a missed peak.
inline void heap_grow(Slot* s, int64_t bytes) {
  add_owned(&s->heap_shrink_room, bytes);
  if (ACCOUNT_UNLIKELY(sub_owned_goes_negative(&s->heap_grow_room, bytes))) heap_sync(s);
}

/// Owned slot only: heap_shrink's two updates; true when a heap_sync is due
/// (free() calls it so that the sync can share a tail call with glibc's free).
inline bool heap_shrink_leaves_sync_due(Slot* s, int64_t bytes) {
  add_owned(&s->heap_grow_room, bytes);
  return sub_owned_goes_negative(&s->heap_shrink_room, bytes);
}

/// Owned slot only.
inline void heap_shrink(Slot* s, int64_t bytes) {
  if (ACCOUNT_UNLIKELY(heap_shrink_leaves_sync_due(s, bytes))) heap_sync(s);
}

inline void count_copy(uint64_t bytes) {
  Slot* s = current_slot();
  if (ACCOUNT_UNLIKELY(s->shared)) return count_copy_shared(s, bytes);
  add_owned(&s->copied_calls, uint64_t{1});
  add_owned(&s->copied_bytes, bytes);
}

/// One malloc-family call asking for `requested` bytes; `usable_bytes` is the
/// usable size of the block it returned (0 if it failed).
inline void count_malloc_call(uint64_t requested, int64_t usable_bytes) {
  Slot* s = current_slot();
  if (ACCOUNT_UNLIKELY(s->shared)) return count_alloc_shared(s, requested, usable_bytes);
  add_owned(&s->malloc_calls, uint64_t{1});
  add_owned(&s->malloc_bytes, requested);
  note_request(s, requested);
  if (ACCOUNT_LIKELY(usable_bytes > 0)) heap_grow(s, usable_bytes);
}

/// realloc: one call asking for `requested`; the block's usable size went from
/// `old_usable` to `new_usable`, and `moved` bytes were copied to a new place.
/// Owned slot only: realloc's counting (count_realloc_call's, and realloc's fast path's).
inline void count_realloc_owned(Slot* s, uint64_t requested, int64_t old_usable, int64_t new_usable,
                                uint64_t moved) {
  add_owned(&s->malloc_calls, uint64_t{1});
  add_owned(&s->malloc_bytes, requested);
  note_request(s, requested);
  if (new_usable > old_usable)
    heap_grow(s, new_usable - old_usable);
  else if (new_usable < old_usable)
    heap_shrink(s, old_usable - new_usable);
  if (moved) add_owned(&s->realloc_copied_bytes, moved);
}

inline void count_realloc_call(uint64_t requested, int64_t old_usable, int64_t new_usable,
                               uint64_t moved) {
  Slot* s = current_slot();
  if (ACCOUNT_UNLIKELY(s->shared))
    return count_realloc_shared(s, requested, old_usable, new_usable, moved);
  count_realloc_owned(s, requested, old_usable, new_usable, moved);
}

inline void count_free_call(int64_t usable_bytes) {
  Slot* s = current_slot();
  if (ACCOUNT_UNLIKELY(s->shared)) return count_free_shared(s, usable_bytes);
  add_owned(&s->free_calls, uint64_t{1});
  if (usable_bytes > 0) heap_shrink(s, usable_bytes);
}

/// Called in a fork child: a fresh region (the parent's is unmapped), the calling
/// thread keeps counting.
void reset_region_after_fork();
/// Makes the calling thread count into a private sink (the sampler process).
void detach_thread_from_region();

}  // namespace account
