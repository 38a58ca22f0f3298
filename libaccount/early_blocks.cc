#include "early_blocks.h"

#include "atomics.h"
#include "counters.h"
#include "next_allocator.h"

namespace account {

bool g_libraries_started = false;

namespace {

// A sanitizer's start frees most of what it makes at once (the loader's
// error strings of its lookups): a few blocks are live at a time.
constexpr int kEarlyBlocks = 64;
constexpr uintptr_t kBusy = 1;  // an entry being written or taken

struct EarlyBlock {
  uintptr_t block;  // 0 free, kBusy, or the block
  uint64_t counted;
};
ACCOUNT_LARGE_BSS EarlyBlock g_early[kEarlyBlocks];  // untouched by most starts
int g_early_live = 0;

bool claim(EarlyBlock* e, uintptr_t from) {
  return __atomic_compare_exchange_n(&e->block, &from, kBusy, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED);
}

void release(EarlyBlock* e, uintptr_t to) {
  __atomic_store_n(&e->block, to, __ATOMIC_RELEASE);
}

}  // namespace

bool note_early_block(void* p, uint64_t requested) {
  for (EarlyBlock& e : g_early) {
    if (!claim(&e, 0)) continue;
    e.counted = requested;
    fetch_add_relaxed(&g_early_live, 1);
    release(&e, reinterpret_cast<uintptr_t>(p));
    return true;
  }
  return false;
}

bool take_early_block(void* p, int64_t* counted) {
  if (load_relaxed(&g_early_live) == 0) return false;
  for (EarlyBlock& e : g_early) {
    if (!claim(&e, reinterpret_cast<uintptr_t>(p))) continue;
    *counted = static_cast<int64_t>(e.counted);
    fetch_add_relaxed(&g_early_live, -1);
    release(&e, 0);
    return true;
  }
  return false;
}

void settle_early_blocks() {
  __atomic_store_n(&g_libraries_started, true, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&g_early_live, __ATOMIC_SEQ_CST) == 0) return;  // nearly always
  for (EarlyBlock& e : g_early) {
    uintptr_t block = __atomic_load_n(&e.block, __ATOMIC_ACQUIRE);
    if (block <= kBusy || !claim(&e, block)) continue;
    auto usable = static_cast<int64_t>(g_next.malloc_usable_size(reinterpret_cast<void*>(block)));
    grow_heap_uncounted(usable - static_cast<int64_t>(e.counted));
    fetch_add_relaxed(&g_early_live, -1);
    release(&e, 0);
  }
}

}  // namespace account
