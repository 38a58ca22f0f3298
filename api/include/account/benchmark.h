/// Google Benchmark's memory figures from the shim's counts (docs/budgets.md):
///   account::register_memory_manager();   // before RunSpecifiedBenchmarks
/// registers an account::MemoryManager, which fills num_allocs,
/// total_allocated_bytes, net_heap_growth and max_bytes_used (the process's,
/// over Benchmark's memory run), and
///   account::CopiedCounters copies(state);   // first line of a benchmark
/// reports copied_bytes and copied_calls per iteration as user counters.
/// Without the shim nothing is registered (Benchmark would print 0 allocations
/// for figures nobody counted: unknown is not zero) and the counters are absent.
#pragma once

#include <account/account.h>
#include <benchmark/benchmark.h>

#include <cstdio>

namespace account {

class MemoryManager : public ::benchmark::MemoryManager {
 public:
  void Start() override {
    account_peak_reset(ACCOUNT_PROCESS);
    counting_ = snapshot(&start_);
  }
  void Stop(Result* result) override { Stop(*result); }
  void Stop(Result& result) override {
    account_counters end;
    if (!counting_ || !snapshot(&end)) return;
    result.num_allocs = int64_t(end.malloc_calls - start_.malloc_calls);
    result.total_allocated_bytes = int64_t(end.malloc_bytes - start_.malloc_bytes);
    result.net_heap_growth = end.heap_live_bytes - start_.heap_live_bytes;
    result.max_bytes_used = end.heap_peak_bytes;  // the live heap's peak, usable bytes
  }

 private:
  static bool snapshot(account_counters* c) {
    *c = account_counters{};
    c->size = sizeof *c;
    return account_snapshot(c, ACCOUNT_PROCESS) == 0;
  }
  bool counting_ = false;
  account_counters start_{};
};

/// Registers one account::MemoryManager when the shim counts this process and
/// returns true; otherwise says so in one line on stderr and returns false.
inline bool register_memory_manager() {
  if (!account_counting()) {
    fputs(
        "account: nothing is counted in this process, so no memory figures (run under "
        "`account run` or with LD_PRELOAD=libaccount.so)\n",
        stderr);
    return false;
  }
  static MemoryManager manager;
  ::benchmark::RegisterMemoryManager(&manager);
  return true;
}

/// Copies made on the benchmark's thread while it lives, as the user counters
/// copied_bytes and copied_calls, averaged per iteration.
class CopiedCounters {
 public:
  explicit CopiedCounters(::benchmark::State& state) : state_(state) {
    start_.size = sizeof start_;
    counting_ = account_snapshot(&start_, ACCOUNT_THREAD) == 0;
  }
  ~CopiedCounters() {
    account_counters end{};
    end.size = sizeof end;
    if (!counting_ || account_snapshot(&end, ACCOUNT_THREAD) != 0) return;
    using ::benchmark::Counter;
    state_.counters["copied_bytes"] =
        Counter(double(end.copied_bytes - start_.copied_bytes), Counter::kAvgIterations);
    state_.counters["copied_calls"] =
        Counter(double(end.copied_calls - start_.copied_calls), Counter::kAvgIterations);
  }
  CopiedCounters(const CopiedCounters&) = delete;
  CopiedCounters& operator=(const CopiedCounters&) = delete;

 private:
  ::benchmark::State& state_;
  account_counters start_{};
  bool counting_ = false;
};

}  // namespace account
