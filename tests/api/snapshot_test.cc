// The C API (<account/account.h>) inside a process run with the shim
// preloaded (this executable's tests run with LD_PRELOAD set by CMake): exact
// figures for the calls made between two snapshots of the calling thread.
#include <account/account.h>
#include <gtest/gtest.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

namespace {

// Every call below is a real call the shim sees (built with -fno-builtin; the
// volatile pointers keep the compiler from pairing malloc and free away).
void* (*volatile do_malloc)(size_t) = malloc;
void* (*volatile do_realloc)(void*, size_t) = realloc;
void (*volatile do_free)(void*) = free;
void* (*volatile do_memcpy)(void*, const void*, size_t) = memcpy;
void* (*volatile do_calloc)(size_t, size_t) = calloc;

account_counters snap(account_scope scope) {
  account_counters c{};
  c.size = sizeof c;
  if (account_snapshot(&c, scope) != 0) c.version = 0;  // checked by the caller
  return c;
}

TEST(ApiSnapshot, CountingUnderTheShim) {
  EXPECT_EQ(account_counting(), 1);
  EXPECT_EQ(snap(ACCOUNT_THREAD).version, uint32_t{ACCOUNT_COUNTERS_VERSION});
}

TEST(ApiSnapshot, ThreadMallocAndFreeAreExact) {
  ASSERT_EQ(account_peak_reset(ACCOUNT_THREAD), 0);
  account_counters a = snap(ACCOUNT_THREAD);
  void* p = do_malloc(1000);
  account_counters b = snap(ACCOUNT_THREAD);
  int64_t usable = int64_t(malloc_usable_size(p));
  do_free(p);
  account_counters c = snap(ACCOUNT_THREAD);
  ASSERT_NE(a.version, 0u);
  EXPECT_EQ(b.malloc_calls - a.malloc_calls, 1u);
  EXPECT_EQ(b.malloc_bytes - a.malloc_bytes, 1000u);
  EXPECT_EQ(b.largest_malloc_bytes, 1000u);  // the window started at the reset
  EXPECT_EQ(b.heap_live_bytes - a.heap_live_bytes, usable);
  EXPECT_EQ(c.free_calls - b.free_calls, 1u);
  EXPECT_EQ(c.heap_live_bytes, a.heap_live_bytes);
  EXPECT_EQ(c.heap_peak_bytes, b.heap_live_bytes);
  EXPECT_EQ(c.malloc_calls, b.malloc_calls);
}

TEST(ApiSnapshot, CopiesAndReallocMovesAreExact) {
  static char from[4096], to[4096];
  void* p = do_malloc(100);
  void* blocker = do_malloc(100);  // keeps p from growing in place
  uint64_t moved = malloc_usable_size(p);
  account_counters a = snap(ACCOUNT_THREAD);
  do_memcpy(to, from, sizeof to);
  void* q = do_realloc(p, 1 << 20);
  account_counters b = snap(ACCOUNT_THREAD);
  do_free(q);
  do_free(blocker);
  EXPECT_EQ(b.copied_calls - a.copied_calls, 1u);
  EXPECT_EQ(b.copied_bytes - a.copied_bytes, 4096u);
  EXPECT_EQ(b.realloc_copied_bytes - a.realloc_copied_bytes, moved);
  EXPECT_EQ(b.malloc_bytes - a.malloc_bytes, uint64_t{1} << 20);
}

void* allocate_three_mib(void* out) {
  *static_cast<void**>(out) = do_malloc(3u << 20);  // kept live after the thread ends
  return nullptr;
}

TEST(ApiSnapshot, ProcessSumsThreadsThatExited) {
  void* block = nullptr;
  account_counters a = snap(ACCOUNT_PROCESS);
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, nullptr, allocate_three_mib, &block), 0);
  pthread_join(t, nullptr);
  account_counters b = snap(ACCOUNT_PROCESS);
  ASSERT_NE(b.version, 0u);
  int64_t usable = int64_t(malloc_usable_size(block));
  do_free(block);
  account_counters c = snap(ACCOUNT_PROCESS);
  // pthread_create allocates a little for itself (glibc: the thread's DTV).
  EXPECT_GE(b.malloc_bytes - a.malloc_bytes, uint64_t{3} << 20);
  EXPECT_LT(b.malloc_bytes - a.malloc_bytes, (uint64_t{3} << 20) + 4096);
  EXPECT_GE(b.largest_malloc_bytes, uint64_t{3} << 20);
  // The exited thread published its pending change when its slot was released.
  EXPECT_GE(b.heap_live_bytes - a.heap_live_bytes, usable);
  EXPECT_LT(b.heap_live_bytes - a.heap_live_bytes, usable + 4096);
  EXPECT_EQ(b.heap_live_bytes - c.heap_live_bytes, usable);
}

TEST(ApiSnapshot, ProcessPeakResetStartsAWindowAtTheLiveHeap) {
  do_free(do_malloc(8u << 20));
  account_counters before = snap(ACCOUNT_PROCESS);
  EXPECT_GE(before.heap_peak_bytes - before.heap_live_bytes, int64_t{8} << 20);
  ASSERT_EQ(account_peak_reset(ACCOUNT_PROCESS), 0);
  account_counters after = snap(ACCOUNT_PROCESS);
  EXPECT_EQ(after.heap_peak_bytes, after.heap_live_bytes);
  void* p = do_malloc(1u << 20);
  int64_t usable = int64_t(malloc_usable_size(p));
  do_free(p);
  account_counters again = snap(ACCOUNT_PROCESS);
  EXPECT_EQ(again.heap_peak_bytes - after.heap_live_bytes, usable);
  EXPECT_EQ(again.heap_live_bytes, after.heap_live_bytes);
}

// A call that makes no block asks for nothing: counted as a call, its request
// in neither malloc_bytes nor largest_malloc_bytes (a 2^62-byte probe would
// otherwise be the thread's largest, and two of 2^63 wrapped the sum). glibc
// refuses each at once; malloc's and calloc's fast paths and realloc's.
TEST(ApiSnapshot, AFailedCallAsksForNothing) {
  ASSERT_EQ(account_peak_reset(ACCOUNT_THREAD), 0);
  account_counters a = snap(ACCOUNT_THREAD);
  volatile size_t huge = size_t{1} << 62, top = size_t{1} << 63;
  EXPECT_EQ(do_malloc(huge), nullptr);
  EXPECT_EQ(do_malloc(top), nullptr);
  EXPECT_EQ(do_malloc(top), nullptr);
  EXPECT_EQ(do_calloc(huge, 1), nullptr);
  void* p = do_malloc(100);
  EXPECT_EQ(do_realloc(p, huge), nullptr);  // p stays
  do_free(p);
  account_counters b = snap(ACCOUNT_THREAD);
  EXPECT_EQ(b.malloc_calls - a.malloc_calls, 6u);
  EXPECT_EQ(b.malloc_bytes - a.malloc_bytes, 100u);
  EXPECT_EQ(b.largest_malloc_bytes, 100u);
  EXPECT_EQ(b.heap_live_bytes, a.heap_live_bytes);
}

TEST(ApiSnapshot, ThreadPeakIsTheThreadsOwnNet) {
  ASSERT_EQ(account_peak_reset(ACCOUNT_THREAD), 0);
  account_counters a = snap(ACCOUNT_THREAD);
  void* p = do_malloc(2u << 20);
  void* q = do_malloc(1u << 20);
  int64_t usable = int64_t(malloc_usable_size(p) + malloc_usable_size(q));
  do_free(p);
  do_free(q);
  account_counters b = snap(ACCOUNT_THREAD);
  EXPECT_EQ(b.heap_peak_bytes - a.heap_live_bytes, usable);
  EXPECT_EQ(b.largest_malloc_bytes, 2u << 20);
}

TEST(ApiSnapshot, BadArgumentsFillNothing) {
  account_counters c{};
  c.size = 8;  // older than version 1: not a caller this shim knows
  EXPECT_EQ(account_snapshot(&c, ACCOUNT_THREAD), -1);
  EXPECT_EQ(c.version, 0u);
  c.size = sizeof c;
  EXPECT_EQ(account_snapshot(&c, account_scope(7)), -1);
  EXPECT_EQ(account_snapshot(nullptr, ACCOUNT_THREAD), -1);
  EXPECT_EQ(account_peak_reset(account_scope(7)), -1);
  EXPECT_EQ(account_largest_malloc_stack(nullptr, 4), -1);
}

TEST(ApiSnapshot, WithoutBacktracesTheLargestBlocksStackIsNotKnown) {
  ASSERT_EQ(account_peak_reset(ACCOUNT_THREAD), 0);
  do_free(do_malloc(100000));
  void* frames[4];
  EXPECT_EQ(account_largest_malloc_stack(frames, 4), 0);
}

}  // namespace
