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

/// What the hot path keeps per thread, in one TLS block so that a call finds
/// its address once: the slot, and the thread's last allocation (freed before
/// the thread's next allocation, it is a temporary).
struct ThreadCounting {
  Slot* slot;
  void* last_block;
  uint64_t last_request;
};
extern __thread ThreadCounting tls_counting __attribute__((tls_model("initial-exec")));

/// The in-test API's per-thread figures (api_entry.cc), off the hot path: the
/// net usable bytes the thread's slot published while it held it
/// (publish_heap), so its own net heap is this plus pending, and that net's
/// highest value (heap_sync).
struct ThreadHeap {
  int64_t net_published;
  int64_t own_peak;
};
extern __thread ThreadHeap tls_own_heap __attribute__((tls_model("initial-exec")));
extern Region* g_region;

/// What libc's own copies (libc_copies.h) must do on this thread besides being
/// counted in its owned slot: while any bit is set they take the slow path.
constexpr uint32_t kLibcDetourUnowned = 1;    // no owned slot: unclaimed, or the shared slot
constexpr uint32_t kLibcDetourAllocator = 2;  // inside realloc: its move is realloc_copied_bytes
constexpr uint32_t kLibcDetourFork = 4;       // fork under way: the child's slot is the parent's
extern __thread uint32_t tls_libc_detour __attribute__((tls_model("initial-exec")));

Slot* claim_slot();  // slow path: first call on a thread

/// The fast paths' test of Slot::detour: a plain read, which the compiler
/// folds into one compare with memory (an atomic load takes two
/// instructions). Another thread may set the bits (set_heap_detour); a call
/// that reads them a moment late is counted on the fast path, as it would
/// have been had it started a moment earlier.
inline uint32_t detour_bits(const Slot* s) {
  return s->detour;
}

inline Slot* current_slot() {
  Slot* s = tls_counting.slot;
  if (ACCOUNT_UNLIKELY(s == &g_unclaimed_slot)) s = claim_slot();
  return s;
}

/// Sets or clears kDetourHeap on every owned slot and on those claimed later:
/// after the usable-size check and whenever backtraces start or stop.
void set_heap_detour(bool on);

void publish_heap(Slot* s);  // moves pending into Region::heap_published

/// An owned slot's net heap change not yet in Region::heap_published (the
/// shared slot publishes at once: 0). The one reading of Slot::heap_shrink_room.
inline int64_t slot_pending(const Slot* s) {
  return s->shared ? 0 : load_relaxed(&s->heap_shrink_room) - kHeapPublishBytes;
}

/// Owned slot only, out of line: publishes pending if it is kHeapPublishBytes
/// either way, raises heap_peak if the live heap (published + own pending) is
/// above it, and sets heap_grow_room to the growth that needs no new look.
void heap_sync(Slot* s);

/// A new account_peak_reset(ACCOUNT_PROCESS) window for the slot's heap_peak,
/// starting at `live`: by its owner in heap_sync, for the shared slot by the reset.
void start_peak_epoch(Slot* s, uint32_t epoch, int64_t live);

/// Raises a slot's largest single request. Owned slot only: one compare that
/// is nearly always false (a new largest block is rare).
__attribute__((noinline, cold)) void raise_largest_request(Slot* s, int64_t requested);
inline void note_request(Slot* s, uint64_t requested) {
  // A plain read: only this thread writes it.
  if (ACCOUNT_UNLIKELY(int64_t(requested) > s->largest_request))
    raise_largest_request(s, int64_t(requested));
}

/// The shared slot's counterparts of the functions below (atomic RMW), out of line.
void count_alloc_shared(Slot* s, uint64_t requested, void* block, int64_t usable_bytes);
void count_free_shared(Slot* s, void* ptr, int64_t usable_bytes);
void count_copy_shared(Slot* s, uint64_t bytes);
void count_realloc_shared(Slot* s, uint64_t requested, int64_t old_usable, int64_t new_usable,
                          uint64_t moved, int64_t no_new_block);

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

/// The heap grows by `bytes` (either sign) with no call counted: a block
/// counted at its request whose usable size became known later (early_blocks.h).
void grow_heap_uncounted(int64_t bytes);

inline void count_copy(uint64_t bytes) {
  Slot* s = current_slot();
  if (ACCOUNT_UNLIKELY(s->shared)) return count_copy_shared(s, bytes);
  add_owned(&s->copied_calls, uint64_t{1});
  add_owned(&s->copied_bytes, bytes);
}

/// The thread's newest block: a free of it before the next allocation is a
/// temporary. Every allocating call sets it (NULL when it failed).
inline void note_last_block(void* block, uint64_t requested) {
  tls_counting.last_block = block;
  tls_counting.last_request = requested;
}

/// Owned slot only: `ptr` (never NULL) is being freed.
inline void note_temporary(Slot* s, void* ptr) {
  // No branch hint: in a loop of temporaries every free takes it, and laid
  // out in line it costs them a jump less.
  if (ptr == tls_counting.last_block) {
    add_owned(&s->temporary_allocs, uint64_t{1});
    add_owned(&s->temporary_bytes, tls_counting.last_request);
  }
}

/// One malloc-family call asking for `requested` bytes that returned `block`
/// of `usable_bytes` (NULL and 0 if it failed). A call that made no block is
/// counted as a call that asked for nothing: its request is neither in
/// malloc_bytes nor the largest (a test's SIZE_MAX probe would otherwise
/// swamp the one and wrap the other's sum).
inline void count_malloc_call(uint64_t requested, void* block, int64_t usable_bytes) {
  note_last_block(block, requested);
  Slot* s = current_slot();
  if (ACCOUNT_UNLIKELY(s->shared)) return count_alloc_shared(s, requested, block, usable_bytes);
  add_owned(&s->malloc_calls, uint64_t{1});
  if (ACCOUNT_LIKELY(block != nullptr)) {
    add_owned(&s->malloc_bytes, requested);
    note_request(s, requested);
    heap_grow(s, usable_bytes);
  } else {
    add_owned(&s->block_adjust, int64_t{1});
  }
}

/// realloc(ptr, requested) returned `block`: 1 when it made no new block (ptr
/// was one, or it failed), 2 when it freed ptr and made none (a size of 0).
inline int64_t realloc_no_new_block(void* ptr, void* block, uint64_t requested) {
  if (block) return ptr ? 1 : 0;
  return ptr && requested == 0 ? 2 : 1;
}

/// realloc(ptr, requested) returned `block`: whether ptr is gone (it moved,
/// or realloc(ptr, 0) freed it) rather than resized in place or left alone.
inline bool realloc_freed_block(void* ptr, void* block, uint64_t requested) {
  return ptr && ptr != block && (block || requested == 0);
}

/// ptr is a temporary if realloc freed it while it was the thread's newest block.
inline void note_realloc_block(Slot* s, void* ptr, void* block, uint64_t requested) {
  if (realloc_freed_block(ptr, block, requested)) note_temporary(s, ptr);
  note_last_block(block, requested);
}

/// realloc: one call asking for `requested` (0 when it failed: count_malloc_call's
/// rule); the block's usable size went from `old_usable` to `new_usable`, and
/// `moved` bytes were copied to a new place.
/// Owned slot only: realloc's counting (count_realloc_call's, and realloc's fast path's).
inline void count_realloc_owned(Slot* s, uint64_t requested, int64_t old_usable, int64_t new_usable,
                                uint64_t moved, int64_t no_new_block) {
  add_owned(&s->malloc_calls, uint64_t{1});
  add_owned(&s->malloc_bytes, requested);
  add_owned(&s->block_adjust, no_new_block);
  note_request(s, requested);
  if (new_usable > old_usable)
    heap_grow(s, new_usable - old_usable);
  else if (new_usable < old_usable)
    heap_shrink(s, old_usable - new_usable);
  if (moved) add_owned(&s->realloc_copied_bytes, moved);
}

inline void count_realloc_call(void* ptr, void* block, uint64_t requested, int64_t old_usable,
                               int64_t new_usable, uint64_t moved) {
  Slot* s = current_slot();
  int64_t no_new_block = realloc_no_new_block(ptr, block, requested);
  uint64_t asked = block ? requested : 0;
  if (ACCOUNT_UNLIKELY(s->shared)) {
    note_last_block(block, requested);
    return count_realloc_shared(s, asked, old_usable, new_usable, moved, no_new_block);
  }
  note_realloc_block(s, ptr, block, requested);
  count_realloc_owned(s, asked, old_usable, new_usable, moved, no_new_block);
}

/// free(ptr) of a block of `usable_bytes`; ptr may be NULL.
inline void count_free_call(void* ptr, int64_t usable_bytes) {
  Slot* s = current_slot();
  if (ACCOUNT_UNLIKELY(s->shared)) return count_free_shared(s, ptr, usable_bytes);
  add_owned(&s->free_calls, uint64_t{1});
  if (ptr == nullptr) return add_owned(&s->block_adjust, int64_t{-1});
  note_temporary(s, ptr);
  heap_shrink(s, usable_bytes);
}

/// Called in a fork child: a fresh region (the parent's is unmapped), the calling
/// thread keeps counting.
void reset_region_after_fork();
/// Makes the calling thread count into a private sink (the sampler process).
void detach_thread_from_region();

}  // namespace account
