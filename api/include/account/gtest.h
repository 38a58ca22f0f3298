/// GoogleTest assertions on what a statement allocates and copies on the
/// calling thread, counted by the shim (docs/budgets.md):
///   EXPECT_NO_MALLOC(parse(input));
///   EXPECT_MALLOC_BYTES_AT_MOST(table.insert(key), 4096);
///   ASSERT_COPIED_BYTES_AT_MOST(buffer.append(data), data.size());
/// Without the shim each skips the test (GTEST_SKIP) with the reason.
#pragma once

#include <account/account.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace account::gtest_detail {

enum class Budget { kMalloc, kCopied };

/// One frame as `function (module+0xoffset)`: the function from the dynamic
/// symbols (a program's own functions need -rdynamic, CMake's ENABLE_EXPORTS),
/// the offset of the call instruction for `addr2line -f -e module`.
inline std::string name_frame(void* ip) {
  uintptr_t call = reinterpret_cast<uintptr_t>(ip) - 1;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(call), &info) == 0 || info.dli_fname == nullptr) return "?";
  std::string function = "?";
  if (info.dli_sname != nullptr) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    function = status == 0 && demangled ? demangled : info.dli_sname;
    std::free(demangled);
  }
  std::string module = info.dli_fname;
  if (size_t slash = module.rfind('/'); slash != std::string::npos) module.erase(0, slash + 1);
  char offset[32];
  std::snprintf(offset, sizeof offset, "+0x%zx",
                size_t(call - reinterpret_cast<uintptr_t>(info.dli_fbase)));
  return function + " (" + module + offset + ")";
}

/// Where the thread's largest block of the window came from, as lines
/// for the failure message, or how to have it named.
inline std::string largest_block_site() {
  constexpr int kFrames = 8;
  void* frames[kFrames];
  int n = account_largest_malloc_stack(frames, kFrames);
  if (n <= 0)
    return "\n(ACCOUNT_BACKTRACE_MIN at or below the largest block's size names where it came "
           "from)";
  std::string site = "\nthe largest block was asked for at:";
  for (int i = 0; i < n; ++i) {
    std::string frame = name_frame(frames[i]);
    if (frame.rfind("testing::", 0) == 0 || frame.find(" testing::") != std::string::npos)
      break;  // GoogleTest's own frames, below the test body
    site += "\n  #" + std::to_string(i) + " " + frame;
  }
  return site;
}

inline constexpr char kNotCounting[] =
    "account: nothing is counted in this process (run the test under `account run` "
    "or with LD_PRELOAD=libaccount.so)";

/// The calling thread's counts over one statement.
class Window {
 public:
  bool counting() const { return account_counting() != 0; }
  void start() {
    account_peak_reset(ACCOUNT_THREAD);  // largest_malloc_bytes: this window's
    before_ = snapshot();
  }
  ::testing::AssertionResult judge(Budget budget, uint64_t limit, const char* text) const {
    account_counters after = snapshot();
    uint64_t calls = after.malloc_calls - before_.malloc_calls;
    uint64_t bytes = after.malloc_bytes - before_.malloc_bytes;
    const char* what = "malloc";
    if (budget == Budget::kCopied) {
      calls = after.copied_calls - before_.copied_calls;
      bytes = after.copied_bytes - before_.copied_bytes;
      what = "copied";
    }
    bool over = budget == Budget::kMalloc && limit == 0 ? calls > 0 : bytes > limit;
    if (!over) return ::testing::AssertionSuccess();
    ::testing::AssertionResult r = ::testing::AssertionFailure();
    r << text << " " << what << " " << bytes << " bytes in " << calls
      << (calls == 1 ? " call" : " calls");
    if (budget == Budget::kMalloc)
      r << " (largest block " << after.largest_malloc_bytes << " bytes)";
    r << ", over its budget of " << limit << " bytes";
    if (budget == Budget::kMalloc && after.largest_malloc_bytes > 0) r << largest_block_site();
    return r;
  }

 private:
  static account_counters snapshot() {
    account_counters c{};
    c.size = sizeof c;
    account_snapshot(&c, ACCOUNT_THREAD);
    return c;
  }
  account_counters before_{};
};

}  // namespace account::gtest_detail

/// The statement runs in a lambda, between two snapshots of the thread.
#define ACCOUNT_BUDGET_(statement, budget, limit, fail)                                \
  GTEST_AMBIGUOUS_ELSE_BLOCKER_                                                        \
  if (::account::gtest_detail::Window account_window_; !account_window_.counting())    \
    GTEST_SKIP() << ::account::gtest_detail::kNotCounting;                             \
  else if (const ::testing::AssertionResult account_result_ = (                        \
               account_window_.start(), [&]() { statement; }(),                        \
               account_window_.judge(::account::gtest_detail::Budget::budget, (limit), \
                                     #statement)))                                     \
    ;                                                                                  \
  else                                                                                 \
    fail(account_result_.message())

#define EXPECT_NO_MALLOC(statement) ACCOUNT_BUDGET_(statement, kMalloc, 0, GTEST_NONFATAL_FAILURE_)
#define ASSERT_NO_MALLOC(statement) ACCOUNT_BUDGET_(statement, kMalloc, 0, GTEST_FATAL_FAILURE_)
#define EXPECT_MALLOC_BYTES_AT_MOST(statement, bytes) \
  ACCOUNT_BUDGET_(statement, kMalloc, bytes, GTEST_NONFATAL_FAILURE_)
#define ASSERT_MALLOC_BYTES_AT_MOST(statement, bytes) \
  ACCOUNT_BUDGET_(statement, kMalloc, bytes, GTEST_FATAL_FAILURE_)
#define EXPECT_COPIED_BYTES_AT_MOST(statement, bytes) \
  ACCOUNT_BUDGET_(statement, kCopied, bytes, GTEST_NONFATAL_FAILURE_)
#define ASSERT_COPIED_BYTES_AT_MOST(statement, bytes) \
  ACCOUNT_BUDGET_(statement, kCopied, bytes, GTEST_FATAL_FAILURE_)
