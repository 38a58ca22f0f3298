// The heap-peak bookkeeping of counters.h as a unit: the budgets must give the
// exact peak on one thread, publish in both directions, and stay on the safe
// side when a signal handler counts between a call's two updates.
#include "counters.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <random>
#include <vector>

namespace account {
namespace {

int64_t pending_of(const Slot* s) {
  return s->heap_shrink_room - kHeapPublishBytes;
}

// What the shim's malloc and free do to the heap figures of the calling
// thread's slot, with the live total tracked alongside.
struct Heap {
  Slot* slot = current_slot();
  int64_t live = 0;
  int64_t peak = 0;

  void grow(int64_t bytes) {
    heap_grow(slot, bytes);
    live += bytes;
    if (live > peak) peak = live;
  }
  void shrink(int64_t bytes) {
    heap_shrink(slot, bytes);
    live -= bytes;
  }
};

class Counters : public ::testing::Test {
 protected:
  // Each test starts from a fresh region, as a fork child does.
  void SetUp() override { reset_region_after_fork(); }
};

TEST_F(Counters, SlotStartsWithNothingPendingAndSyncsOnTheFirstGrowth) {
  Slot* s = current_slot();
  EXPECT_EQ(pending_of(s), 0);
  EXPECT_EQ(s->heap_grow_room, 0);
  EXPECT_EQ(s->detour & kDetourAll, 0u);
  heap_grow(s, 100);
  EXPECT_EQ(s->heap_peak, 100);
  EXPECT_EQ(pending_of(s), 100);
  EXPECT_EQ(s->heap_grow_room, 0);  // at the peak: the next growth looks again
}

TEST_F(Counters, RandomWalkOnOneThreadGivesTheExactPeak) {
  Heap h;
  std::mt19937_64 rng(42);
  std::vector<int64_t> blocks;
  int peaks = 0;
  for (int i = 0; i < 200000; ++i) {
    bool up = (i / 3000) % 3 != 2 ? rng() % 3 != 0 : rng() % 3 == 0;
    if (up || blocks.empty()) {
      int64_t bytes =
          (rng() % 50 == 0) ? 100000 + int64_t(rng() % 400000) : 24 + int64_t(rng() % 4000);
      int64_t before = h.peak;
      h.grow(bytes);
      blocks.push_back(bytes);
      if (h.peak > before) ++peaks;
    } else {
      size_t at = rng() % blocks.size();
      h.shrink(blocks[at]);
      blocks[at] = blocks.back();
      blocks.pop_back();
    }
    ASSERT_EQ(h.slot->heap_peak, h.peak) << "after call " << i;
    // Published plus pending is the live heap, and pending stays within a step.
    ASSERT_EQ(g_region->heap_published + pending_of(h.slot), h.live);
    ASSERT_LT(pending_of(h.slot), kHeapPublishBytes);
    ASSERT_GT(pending_of(h.slot), -kHeapPublishBytes);
  }
  EXPECT_GT(peaks, 100);
}

TEST_F(Counters, LargeFreesArePublished) {
  Heap h;
  h.grow(10 << 20);
  EXPECT_GE(g_region->heap_published, (10 << 20) - kHeapPublishBytes);
  h.shrink(10 << 20);
  EXPECT_EQ(g_region->heap_published + pending_of(h.slot), 0);
  EXPECT_LE(g_region->heap_published, kHeapPublishBytes);
  EXPECT_EQ(h.slot->heap_peak, 10 << 20);
}

// A signal handler that allocates and frees between a malloc's two updates
// (pending first, then the room): the room may come out too small, which only
// costs an early heap_sync, never too large, which would miss a peak.
TEST_F(Counters, HandlerBetweenTheTwoUpdatesNeverHidesAPeak) {
  Heap h;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    int64_t bytes = 16 + int64_t(rng() % 70000);
    // malloc, interrupted after its first update:
    add_owned(&h.slot->heap_shrink_room, bytes);
    int64_t handler_bytes = 16 + int64_t(rng() % 70000);
    heap_grow(h.slot, handler_bytes);    // the handler's malloc...
    heap_shrink(h.slot, handler_bytes);  // ...and free, both complete
    if (sub_owned_goes_negative(&h.slot->heap_grow_room, bytes)) heap_sync(h.slot);
    h.live += bytes;
    h.peak = std::max(h.peak, h.live + handler_bytes);  // the handler's block was live too
    h.peak = std::max(h.peak, h.live);
    ASSERT_GE(h.slot->heap_peak, h.live) << "a peak was missed at call " << i;
    // The budget never claims more room than there is.
    ASSERT_LE(h.slot->heap_grow_room, h.slot->heap_peak - h.live);
    if (rng() % 2) h.shrink(bytes);
  }
}

Slot* g_handler_slot = nullptr;
volatile sig_atomic_t g_handler_calls = 0;

// Big enough that both of its calls go through heap_sync.
void allocate_and_free(int) {
  heap_grow(g_handler_slot, kHeapPublishBytes + 1);
  heap_shrink(g_handler_slot, kHeapPublishBytes + 1);
  g_handler_calls = g_handler_calls + 1;
}

std::atomic<bool> g_stop_sending{false};

void* send_signals(void* target) {
  pthread_t main_thread = *static_cast<pthread_t*>(target);
  while (!g_stop_sending.load(std::memory_order_relaxed)) pthread_kill(main_thread, SIGUSR1);
  return nullptr;
}

// The same with real signals landing anywhere in heap_grow and heap_shrink
// (another thread sends them back to back): afterwards the room never exceeds
// what is left below the peak or below the publish step. Swapping the two updates in either
// function makes this fail.
TEST_F(Counters, SignalsAtRandomMomentsNeverLeaveTooMuchRoom) {
  Heap h;
  g_handler_slot = h.slot;
  struct sigaction sa {};
  sa.sa_handler = allocate_and_free;
  sa.sa_flags = SA_RESTART;
  ASSERT_EQ(sigaction(SIGUSR1, &sa, nullptr), 0);
  pthread_t self = pthread_self();
  pthread_t sender;
  g_stop_sending = false;
  ASSERT_EQ(pthread_create(&sender, nullptr, send_signals, &self), 0);
  std::mt19937_64 rng(11);
  std::vector<int64_t> blocks;
  long calls = 0;
  while (calls < 3000000 || g_handler_calls < 20000) {
    for (int i = 0; i < 1000; ++i, ++calls) {
      if (blocks.size() < 64 || (blocks.size() < 4096 && rng() % 2)) {
        int64_t bytes = 16 + int64_t(rng() % 20000);
        h.grow(bytes);
        blocks.push_back(bytes);
      } else {
        size_t at = rng() % blocks.size();
        h.shrink(blocks[at]);
        blocks[at] = blocks.back();
        blocks.pop_back();
      }
      int64_t room = load_relaxed(&h.slot->heap_grow_room);
      int64_t peak = load_relaxed(&h.slot->heap_peak);
      ASSERT_LE(room, peak - h.live) << "after call " << calls;
      ASSERT_LE(room, kHeapPublishBytes - pending_of(h.slot)) << "after call " << calls;
      ASSERT_GE(peak, h.peak) << "after call " << calls;
    }
  }
  g_stop_sending = true;
  pthread_join(sender, nullptr);
  signal(SIGUSR1, SIG_IGN);
  EXPECT_GE(g_handler_calls, 20000);
}

TEST_F(Counters, HeapDetourIsSetAndClearedOnOwnedSlotsOnly) {
  Slot* s = current_slot();
  set_heap_detour(true);
  EXPECT_EQ(s->detour, kDetourHeap);
  EXPECT_EQ(g_region->slots[kSharedSlot].detour, kDetourAll);
  set_heap_detour(false);
  EXPECT_EQ(s->detour, 0u);
  EXPECT_EQ(g_region->slots[kSharedSlot].detour, kDetourAll);
  EXPECT_EQ(g_unclaimed_slot.detour, kDetourAll);
}

}  // namespace
}  // namespace account
