// <account/gtest.h> under the shim (run with LD_PRELOAD set by CMake): budgets
// that hold pass, budgets that do not fail with one message naming what was
// counted. Without the shim: tests/api/probe_test.cc runs this skipping.
#include <account/gtest.h>
#include <gtest/gtest-spi.h>
#include <stdlib.h>
#include <string.h>

namespace {

void* (*volatile do_malloc)(size_t) = malloc;
void (*volatile do_free)(void*) = free;
void* (*volatile do_memcpy)(void*, const void*, size_t) = memcpy;

char g_from[8192], g_to[8192];

int add(int a, int b) {
  return a + b;
}

void allocate_3000_and_5000() {
  do_free(do_malloc(3000));
  do_free(do_malloc(5000));
}

void copy_8192() {
  do_memcpy(g_to, g_from, sizeof g_to);
}

TEST(GtestBudget, BudgetsThatHoldPass) {
  int sum = 0;
  EXPECT_NO_MALLOC(sum = add(2, 3));
  EXPECT_EQ(sum, 5);
  ASSERT_NO_MALLOC(copy_8192());
  EXPECT_MALLOC_BYTES_AT_MOST(allocate_3000_and_5000(), 8000);
  ASSERT_MALLOC_BYTES_AT_MOST(allocate_3000_and_5000(), 8000);
  EXPECT_COPIED_BYTES_AT_MOST(copy_8192(), 8192);
  ASSERT_COPIED_BYTES_AT_MOST(copy_8192(), 8192);
}

TEST(GtestBudget, MallocOverBudgetIsOneMessage) {
  EXPECT_NONFATAL_FAILURE(EXPECT_MALLOC_BYTES_AT_MOST(allocate_3000_and_5000(), 7999),
                          "allocate_3000_and_5000() malloc 8000 bytes in 2 calls (largest block "
                          "5000 bytes), over its budget of 7999 bytes");
  EXPECT_FATAL_FAILURE(ASSERT_MALLOC_BYTES_AT_MOST(allocate_3000_and_5000(), 100),
                       "malloc 8000 bytes in 2 calls (largest block 5000 bytes), over its budget "
                       "of 100 bytes");
}

TEST(GtestBudget, NoMallocFailsOnAnyCallEvenOfZeroBytes) {
  EXPECT_NONFATAL_FAILURE(EXPECT_NO_MALLOC(do_free(do_malloc(0))),
                          "do_free(do_malloc(0)) malloc 0 bytes in 1 call (largest block 0 bytes), "
                          "over its budget of 0 bytes");
  EXPECT_FATAL_FAILURE(ASSERT_NO_MALLOC(allocate_3000_and_5000()), "malloc 8000 bytes in 2 calls");
}

TEST(GtestBudget, CopiedOverBudgetIsOneMessage) {
  EXPECT_NONFATAL_FAILURE(EXPECT_COPIED_BYTES_AT_MOST(copy_8192(), 4096),
                          "copy_8192() copied 8192 bytes in 1 call, over its budget of 4096 bytes");
  EXPECT_FATAL_FAILURE(ASSERT_COPIED_BYTES_AT_MOST(copy_8192(), 0),
                       "copied 8192 bytes in 1 call, over its budget of 0 bytes");
}

}  // namespace
