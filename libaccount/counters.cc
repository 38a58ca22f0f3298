#include "counters.h"

#include <pthread.h>
#include <sys/mman.h>

#include "api_entry.h"
#include "image_file.h"
#include "next_allocator.h"

namespace account {

namespace {
constexpr Slot unclaimed_slot() {
  Slot s{};
  s.detour = kDetourAll;
  return s;
}
}  // namespace

// constinit: a dynamic initializer would run after the first malloc.
constinit Slot g_unclaimed_slot = unclaimed_slot();
__thread ThreadCounting tls_counting
    __attribute__((tls_model("initial-exec"))) = {&g_unclaimed_slot, nullptr, 0};
__thread ThreadHeap tls_own_heap __attribute__((tls_model("initial-exec")));
__thread uint32_t tls_libc_detour __attribute__((tls_model("initial-exec"))) = kLibcDetourUnowned;
Region* g_region = nullptr;

namespace {

// The thread's slot, and whether libc's own copies may count in it directly.
void set_tls_slot(Slot* s) {
  tls_counting.slot = s;
  uint32_t bits = tls_libc_detour & ~kLibcDetourUnowned;
  tls_libc_detour = s->shared ? bits | kLibcDetourUnowned : bits;
}

pthread_key_t g_release_key;
bool g_release_key_ready = false;
// Counts nobody reads: when no shared region can be mapped, and in the sampler
// process (whose memory is private, so nothing reaches the target's region).
ACCOUNT_LARGE_BSS Region g_private_region;
// kDetourHeap until the usable-size check passes (set_heap_detour).
uint32_t g_heap_detour = kDetourHeap;

Region* private_region() {
  init_region(&g_private_region);
  return &g_private_region;
}

// A slot a thread has just taken, already below Region::slot_limit: nothing
// pending (a released slot published its own), and the first allocation syncs.
void start_owned_slot(Slot* s) {
  store_relaxed(&s->heap_shrink_room, kHeapPublishBytes);
  store_relaxed(&s->heap_grow_room, int64_t{0});
  start_thread_window(s);
  // Against a concurrent set_heap_detour: it stores the flag and then walks
  // the slots below slot_limit, so a value still current after our store
  // cannot be overwritten by an older one.
  uint32_t detour;
  do {
    detour = __atomic_load_n(&g_heap_detour, __ATOMIC_SEQ_CST);
    __atomic_store_n(&s->detour, detour, __ATOMIC_SEQ_CST);
  } while (__atomic_load_n(&g_heap_detour, __ATOMIC_SEQ_CST) != detour);
}

Region* ensure_region() {
  Region* r = __atomic_load_n(&g_region, __ATOMIC_ACQUIRE);
  if (r) return r;
  ImagePlace place;
  Region* fresh = map_image_region(&place);
  if (!fresh) fresh = private_region();
  Region* expected = nullptr;
  if (!__atomic_compare_exchange_n(&g_region, &expected, fresh, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    if (fresh != &g_private_region) discard_image_region(fresh, place);
    return expected;
  }
  adopt_image_region(place);
  return fresh;
}

void release_slot(void* arg) {
  Slot* s = static_cast<Slot*>(arg);
  publish_heap(s);
  // Later frees on this thread (other TSD destructors) go to the shared slot.
  set_tls_slot(&g_region->slots[kSharedSlot]);
  __atomic_store_n(&s->owned, 0, __ATOMIC_RELEASE);
}

}  // namespace

void count_alloc_shared(Slot* s, uint64_t requested, void* block, int64_t usable_bytes) {
  fetch_add_relaxed(&s->malloc_calls, uint64_t{1});
  if (block == nullptr) {
    fetch_add_relaxed(&s->block_adjust, int64_t{1});
    return;
  }
  raise_to(&s->largest_request, int64_t(requested));
  fetch_add_relaxed(&s->malloc_bytes, requested);
  if (usable_bytes > 0) {
    int64_t live = fetch_add_relaxed(&g_region->heap_published, usable_bytes) + usable_bytes;
    raise_to(&s->heap_peak, live);
  }
}

void count_free_shared(Slot* s, void* ptr, int64_t usable_bytes) {
  fetch_add_relaxed(&s->free_calls, uint64_t{1});
  if (ptr == nullptr) {
    fetch_add_relaxed(&s->block_adjust, int64_t{-1});
    return;
  }
  if (ptr == tls_counting.last_block) {
    fetch_add_relaxed(&s->temporary_allocs, uint64_t{1});
    fetch_add_relaxed(&s->temporary_bytes, tls_counting.last_request);
  }
  if (usable_bytes > 0) fetch_add_relaxed(&g_region->heap_published, -usable_bytes);
}

void grow_heap_uncounted(int64_t bytes) {
  Slot* s = current_slot();
  if (!s->shared) return heap_grow(s, bytes);
  int64_t live = fetch_add_relaxed(&g_region->heap_published, bytes) + bytes;
  raise_to(&s->heap_peak, live);
}

void count_copy_shared(Slot* s, uint64_t bytes) {
  fetch_add_relaxed(&s->copied_calls, uint64_t{1});
  fetch_add_relaxed(&s->copied_bytes, bytes);
}

void count_realloc_shared(Slot* s, uint64_t requested, int64_t old_usable, int64_t new_usable,
                          uint64_t moved, int64_t no_new_block) {
  raise_to(&s->largest_request, int64_t(requested));
  fetch_add_relaxed(&s->malloc_calls, uint64_t{1});
  fetch_add_relaxed(&s->block_adjust, no_new_block);
  fetch_add_relaxed(&s->malloc_bytes, requested);
  int64_t live = fetch_add_relaxed(&g_region->heap_published, new_usable - old_usable) +
                 (new_usable - old_usable);
  raise_to(&s->heap_peak, live);
  if (moved) fetch_add_relaxed(&s->realloc_copied_bytes, moved);
}

void raise_largest_request(Slot* s, int64_t requested) {
  raise_owned(&s->largest_request, requested);
}

void publish_heap(Slot* s) {
  // An exchange, so a signal handler's change cannot fall between read and reset.
  int64_t pending = __atomic_exchange_n(&s->heap_shrink_room, kHeapPublishBytes, __ATOMIC_RELAXED) -
                    kHeapPublishBytes;
  if (pending != 0) {
    fetch_add_relaxed(&g_region->heap_published, pending);
    add_owned(&tls_own_heap.net_published, pending);
  }
}

void start_peak_epoch(Slot* s, uint32_t epoch, int64_t live) {
  // The lifetime peak (the record's) keeps what this lowers.
  raise_to(&g_region->heap_peak_before_reset, load_relaxed(&s->heap_peak));
  store_relaxed(&s->heap_peak, live);
  store_relaxed(&s->peak_epoch, epoch);
}

void heap_sync(Slot* s) {
  for (;;) {
    int64_t room_seen = load_relaxed(&s->heap_grow_room);
    int64_t pending = slot_pending(s);
    if (pending >= kHeapPublishBytes || pending <= -kHeapPublishBytes) {
      publish_heap(s);
      pending = slot_pending(s);
    }
    // Exact for a single thread; with others, off by their unpublished pending
    // (under kHeapPublishBytes each, either way).
    int64_t live = load_relaxed(&g_region->heap_published) + pending;
    uint32_t epoch = __atomic_load_n(&g_region->peak_epoch, __ATOMIC_ACQUIRE);
    if (load_relaxed(&s->peak_epoch) != epoch) start_peak_epoch(s, epoch, live);
    if (live > load_relaxed(&s->heap_peak)) raise_owned(&s->heap_peak, live);
    int64_t own = load_relaxed(&tls_own_heap.net_published) + pending;
    if (own > load_relaxed(&tls_own_heap.own_peak)) raise_owned(&tls_own_heap.own_peak, own);
    int64_t room = load_relaxed(&s->heap_peak) - live;
    if (kHeapPublishBytes - pending < room) room = kHeapPublishBytes - pending;
    if (load_relaxed(&tls_own_heap.own_peak) - own < room)
      room = load_relaxed(&tls_own_heap.own_peak) - own;
    // Only if no signal handler counted meanwhile; otherwise look again.
    if (replace_owned(&s->heap_grow_room, room_seen, room)) return;
  }
}

void set_heap_detour(bool on) {
  uint32_t bit = on ? kDetourHeap : 0;
  __atomic_store_n(&g_heap_detour, bit, __ATOMIC_SEQ_CST);
  Region* r = __atomic_load_n(&g_region, __ATOMIC_ACQUIRE);
  if (!r) return;
  uint32_t limit = __atomic_load_n(&r->slot_limit, __ATOMIC_SEQ_CST);
  if (limit > kSlotCount) limit = kSlotCount;
  for (uint32_t i = 0; i < limit; ++i) {
    Slot& slot = r->slots[i];
    if (slot.shared) continue;
    __atomic_store_n(&slot.detour, bit, __ATOMIC_SEQ_CST);
  }
}

Slot* claim_slot() {
  Region* r = ensure_region();
  // Create the key before claiming so pthread_setspecific's own allocation (if
  // any) finds tls_counting.slot already set.
  if (!__atomic_load_n(&g_release_key_ready, __ATOMIC_ACQUIRE)) {
    static int creating = 0;
    if (__atomic_exchange_n(&creating, 1, __ATOMIC_ACQ_REL) == 0) {
      tls_counting.slot = &r->slots[kSharedSlot];
      if (pthread_key_create(&g_release_key, release_slot) == 0)
        __atomic_store_n(&g_release_key_ready, true, __ATOMIC_RELEASE);
    }
  }
  Slot* claimed = &r->slots[kSharedSlot];
  for (int i = 1; i < kSlotCount; ++i) {
    uint8_t expected = 0;
    if (__atomic_compare_exchange_n(&r->slots[i].owned, &expected, 1, false, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED)) {
      claimed = &r->slots[i];
      raise_to(&r->slot_limit, uint32_t(i + 1));
      __atomic_thread_fence(__ATOMIC_SEQ_CST);
      start_owned_slot(claimed);
      break;
    }
  }
  set_tls_slot(claimed);
  if (claimed != &r->slots[kSharedSlot] && __atomic_load_n(&g_release_key_ready, __ATOMIC_ACQUIRE))
    pthread_setspecific(g_release_key, claimed);
  return claimed;
}

void reset_region_after_fork() {
  Region* parent = g_region;
  Totals inherited = parent ? sum_slots(parent) : Totals{};
  // A malloc that the parent's calls reached is the shim's: the child's
  // lookup is the parent's (its new Region says so).
  if (malloc_known_by_calls(g_malloc_found) &&
      malloc_was_the_shims(g_malloc_found, inherited.malloc_calls))
    g_malloc_found = kMallocIsTheShims;
  ImagePlace place;
  Region* fresh = map_image_region(&place);
  adopt_image_region(place);  // also when it failed: nothing may go to the parent's file
  if (!fresh) fresh = private_region();
  g_region = fresh;
  fresh->heap_inherited_bytes = inherited.heap_live_bytes;
  fresh->heap_inherited_blocks = inherited.heap_live_blocks;
  // The thread's own figures restart with its fresh slot, as they did in the
  // slot; the parent's last block is the child's too.
  tls_own_heap = ThreadHeap{};
  // The forking thread is the only thread of the child: it takes slot 1 again.
  fresh->slots[1].owned = 1;
  fresh->slot_limit = 2;
  start_owned_slot(&fresh->slots[1]);
  set_tls_slot(&fresh->slots[1]);
  tls_libc_detour = 0;  // the fork is over: libc's copies count in the child's own slot
  if (g_release_key_ready) pthread_setspecific(g_release_key, tls_counting.slot);
  if (parent && parent != &g_private_region) unmap_image_region(parent);
}

void detach_thread_from_region() {
  g_region = private_region();
  g_private_region.slots[1].owned = 1;
  tls_own_heap = ThreadHeap{};
  start_owned_slot(&g_private_region.slots[1]);
  set_tls_slot(&g_private_region.slots[1]);
}

Totals sum_slots(const Region* region) {
  Totals t;
  int64_t peak = 0;
  uint32_t limit = load_relaxed(&region->slot_limit);
  if (limit > kSlotCount) limit = kSlotCount;
  for (uint32_t i = 0; i < limit; ++i) {
    const Slot& s = region->slots[i];
    t.malloc_calls += load_relaxed(&s.malloc_calls);
    t.malloc_bytes += load_relaxed(&s.malloc_bytes);
    t.free_calls += load_relaxed(&s.free_calls);
    t.copied_calls += load_relaxed(&s.copied_calls);
    t.copied_bytes += load_relaxed(&s.copied_bytes);
    t.realloc_copied_bytes += load_relaxed(&s.realloc_copied_bytes);
    t.libc_copied_calls += load_relaxed(&s.libc_copied_calls);
    t.libc_copied_bytes += load_relaxed(&s.libc_copied_bytes);
    t.heap_live_blocks += int64_t(load_relaxed(&s.malloc_calls) - load_relaxed(&s.free_calls)) -
                          load_relaxed(&s.block_adjust);
    t.temporary_allocs += load_relaxed(&s.temporary_allocs);
    t.temporary_bytes += load_relaxed(&s.temporary_bytes);
    t.heap_live_bytes += slot_pending(&s);
    int64_t p = load_relaxed(&s.heap_peak);
    if (p > peak) peak = p;
  }
  int64_t before_reset = load_relaxed(&region->heap_peak_before_reset);
  t.heap_peak_bytes = before_reset > peak ? before_reset : peak;
  t.heap_live_bytes +=
      load_relaxed(&region->heap_published) + load_relaxed(&region->heap_inherited_bytes);
  t.heap_live_blocks += load_relaxed(&region->heap_inherited_blocks);
  t.copied_calls += t.libc_copied_calls;
  t.copied_bytes += t.libc_copied_bytes;
  return t;
}

}  // namespace account
