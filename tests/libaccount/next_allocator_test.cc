// next_allocator.cc as a unit: which allocator comes next, and the bootstrap
// arena that serves dlsym's own allocations while it is being found.
#include "next_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

namespace account {
namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ACCOUNT_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(ACCOUNT_TEST_ASAN)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif

// In the plain build the next allocator is glibc's. In the AddressSanitizer
// build ASan replaces malloc and is not glibc; gcc links its runtime as a
// shared library, so RTLD_NEXT finds ASan's malloc (usable size exactly what
// was asked), while clang links it into the executable, so RTLD_NEXT from the
// executable finds glibc's underneath (a 112-byte chunk less its header).
TEST(NextAllocator, FindsTheAllocatorThisProcessUses) {
  ASSERT_TRUE(next_allocator_ready());
  EXPECT_EQ(g_next.is_glibc, !kAddressSanitizer);
  void* p = g_next.malloc(100);
  ASSERT_NE(p, nullptr);
  size_t usable = g_next.malloc_usable_size(p);
  if (kAddressSanitizer) {
    EXPECT_TRUE(usable == 100u || usable == 104u) << usable;
  } else {
    EXPECT_EQ(usable, 104u);
  }
  g_next.free(p);
  EXPECT_FALSE(bootstrap_arena_used());
}

TEST(NextAllocator, BootstrapBlocksAreAlignedZeroedAndKnown) {
  void* a = bootstrap_alloc(10, 0);
  void* b = bootstrap_alloc(100, 256);
  void* c = bootstrap_alloc(1, 4096);
  ASSERT_TRUE(a && b && c);
  EXPECT_TRUE(bootstrap_arena_used());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 16, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % 256, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c) % 4096, 0u);
  EXPECT_EQ(bootstrap_block_size(a), 10u);
  EXPECT_EQ(bootstrap_block_size(b), 100u);
  EXPECT_EQ(bootstrap_block_size(c), 1u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(static_cast<unsigned char*>(b)[i], 0);
  // Blocks do not overlap: each starts after the previous one's end.
  EXPECT_GE(static_cast<char*>(b), static_cast<char*>(a) + 10);
  EXPECT_GE(static_cast<char*>(c), static_cast<char*>(b) + 100);
  EXPECT_TRUE(is_bootstrap_block(a));
  EXPECT_TRUE(is_bootstrap_block(static_cast<char*>(b) + 99));
  void* heap = malloc(16);
  EXPECT_FALSE(is_bootstrap_block(heap));
  EXPECT_FALSE(is_bootstrap_block(nullptr));
  free(heap);
}

TEST(NextAllocator, BootstrapArenaRefusesWhatItCannotServe) {
  EXPECT_EQ(bootstrap_alloc(16, 8192), nullptr);  // alignment above a page
  EXPECT_EQ(bootstrap_alloc(16, 48), nullptr);    // not a power of two
  EXPECT_EQ(bootstrap_alloc(size_t{1} << 20, 16), nullptr);
  // It runs out after 16 KiB (less the blocks above) and then says so.
  int served = 0;
  while (bootstrap_alloc(1000, 16) != nullptr) ++served;
  EXPECT_GE(served, 8);
  EXPECT_LE(served, 16);
}

}  // namespace
}  // namespace account
