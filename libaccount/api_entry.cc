#include "api_entry.h"

#include <account/account.h>

#include "counters.h"
#include "largest_capture.h"
#include "next_allocator.h"

namespace account {
namespace {

// The slot's counts when the calling thread took it: thread figures are the
// slot's minus these. Static TLS, written only by its thread.
struct ThreadBase {
  uint64_t malloc_calls, malloc_bytes, free_calls, realloc_copied_bytes;
  uint64_t copied_calls, copied_bytes;
  int64_t heap_net;
};
__thread ThreadBase tls_base __attribute__((tls_model("initial-exec")));

int64_t own_net(const Slot* s) {
  return load_relaxed(&tls_own_heap.net_published) + slot_pending(s);
}

uint64_t copied_calls(const Slot* s) {
  return load_relaxed(&s->copied_calls) + load_relaxed(&s->libc_copied_calls);
}

uint64_t copied_bytes(const Slot* s) {
  return load_relaxed(&s->copied_bytes) + load_relaxed(&s->libc_copied_bytes);
}

// The calling thread's owned slot, claimed if it has none yet; null when it
// can only have the shared one.
Slot* owned_slot() {
  Slot* s = current_slot();
  return s->shared ? nullptr : s;
}

bool counting() {
  return malloc_was_the_shims(
      g_malloc_found, malloc_known_by_calls(g_malloc_found) ? sum_slots(g_region).malloc_calls : 0);
}

void thread_snapshot(const Slot* s, account_counters* c) {
  const ThreadBase& b = tls_base;
  c->malloc_calls = load_relaxed(&s->malloc_calls) - b.malloc_calls;
  c->malloc_bytes = load_relaxed(&s->malloc_bytes) - b.malloc_bytes;
  c->free_calls = load_relaxed(&s->free_calls) - b.free_calls;
  c->realloc_copied_bytes = load_relaxed(&s->realloc_copied_bytes) - b.realloc_copied_bytes;
  c->copied_calls = copied_calls(s) - b.copied_calls;
  c->copied_bytes = copied_bytes(s) - b.copied_bytes;
  c->heap_live_bytes = own_net(s) - b.heap_net;
  int64_t peak = load_relaxed(&tls_own_heap.own_peak) - b.heap_net;
  c->heap_peak_bytes = peak > c->heap_live_bytes ? peak : c->heap_live_bytes;
  c->largest_malloc_bytes = uint64_t(load_relaxed(&s->largest_request));
}

void process_snapshot(const Region* r, account_counters* c) {
  *c = account_counters{c->size, c->version, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  uint32_t epoch = __atomic_load_n(&r->peak_epoch, __ATOMIC_ACQUIRE);
  int64_t live = load_relaxed(&r->heap_published);
  int64_t peak = load_relaxed(&r->heap_live_at_reset);
  int64_t largest = 0;
  uint32_t limit = load_relaxed(&r->slot_limit);
  if (limit > kSlotCount) limit = kSlotCount;
  for (uint32_t i = 0; i < limit; ++i) {
    const Slot& s = r->slots[i];
    c->malloc_calls += load_relaxed(&s.malloc_calls);
    c->malloc_bytes += load_relaxed(&s.malloc_bytes);
    c->free_calls += load_relaxed(&s.free_calls);
    c->realloc_copied_bytes += load_relaxed(&s.realloc_copied_bytes);
    c->copied_calls += copied_calls(&s);
    c->copied_bytes += copied_bytes(&s);
    live += slot_pending(&s);
    if (load_relaxed(&s.peak_epoch) == epoch && load_relaxed(&s.heap_peak) > peak)
      peak = load_relaxed(&s.heap_peak);
    if (load_relaxed(&s.largest_request) > largest) largest = load_relaxed(&s.largest_request);
  }
  c->heap_live_bytes = live;
  c->heap_peak_bytes = peak > live ? peak : live;
  c->largest_malloc_bytes = uint64_t(largest);
}

int64_t process_live(const Region* r) {
  int64_t live = load_relaxed(&r->heap_published);
  uint32_t limit = load_relaxed(&r->slot_limit);
  if (limit > kSlotCount) limit = kSlotCount;
  for (uint32_t i = 0; i < limit; ++i) live += slot_pending(&r->slots[i]);
  return live;
}

void reset_thread_window(Slot* s) {
  store_relaxed(&tls_own_heap.own_peak, own_net(s));
  store_relaxed(&s->largest_request, int64_t{0});
  forget_largest_capture();
  heap_sync(s);  // its grow room was sized against the old peak
}

}  // namespace

void start_thread_window(Slot* s) {
  tls_base = ThreadBase{load_relaxed(&s->malloc_calls),
                        load_relaxed(&s->malloc_bytes),
                        load_relaxed(&s->free_calls),
                        load_relaxed(&s->realloc_copied_bytes),
                        copied_calls(s),
                        copied_bytes(s),
                        own_net(s)};
  store_relaxed(&tls_own_heap.own_peak, own_net(s));
  store_relaxed(&s->largest_request, int64_t{0});
  forget_largest_capture();
}

}  // namespace account

using namespace account;

extern "C" {

// Version 1 of the snapshot: fills the fields of struct account_counters the
// caller's out->size covers (at least the version 1 struct).
__attribute__((visibility("default"))) int account_shim_snapshot_v1(account_counters* out,
                                                                    int scope) {
  if (!out || out->size < sizeof(account_counters) || !counting()) return -1;
  Slot* s = owned_slot();
  out->version = ACCOUNT_COUNTERS_VERSION;
  if (scope == ACCOUNT_THREAD) {
    if (!s) return -1;
    thread_snapshot(s, out);
    return 0;
  }
  if (scope != ACCOUNT_PROCESS) return -1;
  process_snapshot(__atomic_load_n(&g_region, __ATOMIC_ACQUIRE), out);
  return 0;
}

__attribute__((visibility("default"))) int account_shim_peak_reset_v1(int scope) {
  if (!counting() || (scope != ACCOUNT_THREAD && scope != ACCOUNT_PROCESS)) return -1;
  Slot* s = owned_slot();
  if (scope == ACCOUNT_PROCESS) {
    Region* r = __atomic_load_n(&g_region, __ATOMIC_ACQUIRE);
    store_relaxed(&r->heap_live_at_reset, process_live(r));
    uint32_t epoch = __atomic_add_fetch(&r->peak_epoch, 1u, __ATOMIC_ACQ_REL);
    // The shared slot has no owner to start its new window: its heap_peak is
    // only ever changed atomically, so the reset does it.
    start_peak_epoch(&r->slots[kSharedSlot], epoch, load_relaxed(&r->heap_live_at_reset));
  }
  if (s)
    reset_thread_window(s);
  else if (scope == ACCOUNT_THREAD)
    return -1;
  return 0;
}

// Version 1 of the largest request's stack: up to `max` return addresses of
// where the calling thread's largest_malloc_bytes came from, when it was
// captured (ACCOUNT_BACKTRACE_MIN at or below its size).
__attribute__((visibility("default"))) int account_shim_largest_stack_v1(void** frames, int max) {
  if (!counting() || !frames || max < 0) return -1;
  Slot* s = owned_slot();
  if (!s) return -1;
  uint64_t largest = uint64_t(load_relaxed(&s->largest_request));
  return int(largest_capture_frames(largest, reinterpret_cast<uintptr_t*>(frames), uint32_t(max)));
}

}  // extern "C"
