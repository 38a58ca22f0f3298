// <account/gtest.h> under the shim (run with LD_PRELOAD set by CMake): budgets
// that hold pass, budgets that do not fail with one message naming what was
// counted. GtestBudgetSites.* runs alone with ACCOUNT_BACKTRACE_MIN set (its
// own ctest entry). Without the shim: tests/api/probe_test.cc runs this skipping.
#include <account/gtest.h>
#include <gtest/gtest-spi.h>
#include <stdlib.h>
#include <string.h>

#include <string>

// External and exported (ENABLE_EXPORTS), so that dladdr names them.
extern "C" __attribute__((noinline)) void budget_site_allocate_6000();
__attribute__((noinline)) void budget_site_allocate_1000_then_6000();

namespace {

void* (*volatile do_malloc)(size_t) = malloc;
void (*volatile do_free)(void*) = free;
void* (*volatile do_memcpy)(void*, const void*, size_t) = memcpy;

char g_from[8192], g_to[8192];

// The message of the one failure `f` reports.
template <typename F>
std::string only_failure_of(F f) {
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    f();
  }
  return results.size() == 1 ? results.GetTestPartResult(0).message() : "not one failure";
}

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

TEST(GtestBudget, WithoutBacktracesTheMessageSaysHowToNameTheSite) {
  EXPECT_NONFATAL_FAILURE(
      EXPECT_MALLOC_BYTES_AT_MOST(allocate_3000_and_5000(), 7999),
      "over its budget of 7999 bytes\n(ACCOUNT_BACKTRACE_MIN at or below the largest block's "
      "size names where it came from)");
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

TEST(GtestBudgetSites, TheLargestBlocksFunctionIsNamed) {
  ASSERT_NE(getenv("ACCOUNT_BACKTRACE_MIN"), nullptr) << "run with ACCOUNT_BACKTRACE_MIN=4096";
  EXPECT_NONFATAL_FAILURE(EXPECT_MALLOC_BYTES_AT_MOST(budget_site_allocate_6000(), 100),
                          "malloc 6000 bytes in 1 call (largest block 6000 bytes), over its "
                          "budget of 100 bytes\nthe largest block was asked for at:\n  #0 "
                          "budget_site_allocate_6000 (api_gtest_budget_test+0x");
  // The largest of the window, not the last; the 1000 bytes are below the
  // threshold, so only the 6000 was captured: its stack has both functions.
  EXPECT_NONFATAL_FAILURE(EXPECT_MALLOC_BYTES_AT_MOST(budget_site_allocate_1000_then_6000(), 100),
                          "  #0 budget_site_allocate_6000 (api_gtest_budget_test+0x");
  EXPECT_NONFATAL_FAILURE(EXPECT_MALLOC_BYTES_AT_MOST(budget_site_allocate_1000_then_6000(), 100),
                          "  #1 budget_site_allocate_1000_then_6000() (api_gtest_budget_test+0x");
  // GoogleTest's own frames end the list: the test body's is the last.
  std::string message = only_failure_of(
      [] { EXPECT_MALLOC_BYTES_AT_MOST(budget_site_allocate_1000_then_6000(), 100); });
  EXPECT_EQ(message.find("testing::"), std::string::npos) << message;
  EXPECT_NE(message.find("\n  #2 "), std::string::npos) << message;
}

TEST(GtestBudgetSites, ABlockBelowTheThresholdIsNotNamedFromAnEarlierWindow) {
  ASSERT_NE(getenv("ACCOUNT_BACKTRACE_MIN"), nullptr) << "run with ACCOUNT_BACKTRACE_MIN=4096";
  EXPECT_NONFATAL_FAILURE(EXPECT_MALLOC_BYTES_AT_MOST(budget_site_allocate_6000(), 100), "#0");
  // A new window whose largest block (3000) was not captured: the 6000 of the
  // window before must not be named.
  EXPECT_NONFATAL_FAILURE(EXPECT_MALLOC_BYTES_AT_MOST(do_free(do_malloc(3000)), 100),
                          "largest block 3000 bytes), over its budget of 100 bytes\n"
                          "(ACCOUNT_BACKTRACE_MIN at or below");
}

}  // namespace

extern "C" void budget_site_allocate_6000() {
  do_free(do_malloc(6000));
}

void budget_site_allocate_1000_then_6000() {
  void* p = do_malloc(1000);
  budget_site_allocate_6000();  // not a tail call: this frame stays on the stack
  do_free(p);
}
