#include "live_blocks.h"

#include <sys/mman.h>

#include "atomics.h"

namespace account {

bool g_live_blocks_on = false;

namespace {

// key: the block's address; 0 empty, 1 freed (no block is at address 1).
// meta: the request in the high 48 bits, group + 1 in the low 16 (0: other).
struct LiveEntry {
  uint64_t key;
  uint64_t meta;
};
constexpr uint64_t kEmpty = 0, kFreed = 1;

LiveEntry* g_table = nullptr;
constexpr uint64_t kTableBytes = uint64_t(kLiveCapacity) * sizeof(LiveEntry);

uint32_t home_of(uint64_t key) {
  // Blocks are 16-byte aligned: mix the address so neighbours spread.
  uint64_t h = (key >> 4) * 0x9e3779b97f4a7c15ull;
  return uint32_t(h >> 40) & (kLiveCapacity - 1);
}

}  // namespace

bool start_live_blocks() {
  stop_live_blocks();
  void* p = mmap(nullptr, kTableBytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  g_table = static_cast<LiveEntry*>(p);
  g_live_blocks_on = true;
  return true;
}

void stop_live_blocks() {
  g_live_blocks_on = false;
  if (g_table) munmap(g_table, kTableBytes);
  g_table = nullptr;
}

bool live_block_add(void* block, uint64_t requested, int32_t group) {
  uint64_t key = reinterpret_cast<uint64_t>(block);
  if (!g_table || key <= kFreed) return false;
  uint64_t meta = (requested << 16) | uint64_t(uint16_t(group + 1));
  uint32_t index = home_of(key);
  for (uint32_t probe = 0; probe < kLiveProbeLimit; ++probe) {
    LiveEntry& e = g_table[(index + probe) & (kLiveCapacity - 1)];
    uint64_t seen = __atomic_load_n(&e.key, __ATOMIC_ACQUIRE);
    if (seen != kEmpty && seen != kFreed) continue;
    // The meta first: a taker that finds the key reads it after the program
    // handed it the block, which is after this call returned.
    if (__atomic_compare_exchange_n(&e.key, &seen, key, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED)) {
      store_relaxed(&e.meta, meta);
      return true;
    }
  }
  return false;
}

bool live_block_take(void* block, uint64_t* requested, int32_t* group) {
  uint64_t key = reinterpret_cast<uint64_t>(block);
  if (!g_table || key <= kFreed) return false;
  uint32_t index = home_of(key);
  for (uint32_t probe = 0; probe < kLiveProbeLimit; ++probe) {
    LiveEntry& e = g_table[(index + probe) & (kLiveCapacity - 1)];
    uint64_t seen = __atomic_load_n(&e.key, __ATOMIC_ACQUIRE);
    if (seen == kEmpty) return false;
    if (seen != key) continue;
    uint64_t meta = load_relaxed(&e.meta);
    if (!__atomic_compare_exchange_n(&e.key, &seen, kFreed, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
      return false;
    *requested = meta >> 16;
    *group = int32_t(meta & 0xffff) - 1;
    return true;
  }
  return false;
}

}  // namespace account
