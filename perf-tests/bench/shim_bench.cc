// Per-call cost of the shim's counting: ns per malloc/free pair, per memcpy of
// 64 B and 4 KiB, per realloc, on one thread and on two.
//
// The binary contains no shim code: shim_bench.sh runs it twice, bare and with
// LD_PRELOAD=libaccount.so, interleaved, and prints the difference. That
// measures exactly what a user pays (the PLT call into the interposer, its TLS
// load and counter stores, the forward to glibc), not a re-compiled copy of the
// counters that could be inlined differently. It is built with -fno-builtin so
// that every call below goes through the PLT.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <string.h>

namespace {

void BM_MallocFree(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = malloc(size);
    benchmark::DoNotOptimize(p);
    free(p);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Memcpy(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  // Per thread, so two threads never write the same lines.
  char* src = static_cast<char*>(malloc(size));
  char* dst = static_cast<char*>(malloc(size));
  memset(src, 1, size);
  for (auto _ : state) {
    benchmark::DoNotOptimize(memcpy(dst, src, size));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(size));
  free(src);
  free(dst);
}

// Alternates between two sizes in the same malloc bin range so glibc mostly
// resizes in place: the cost measured is the call and its accounting (two
// malloc_usable_size lookups in the shim), not a copy.
void BM_Realloc(benchmark::State& state) {
  void* p = malloc(64);
  size_t i = 0;
  for (auto _ : state) {
    p = realloc(p, (++i & 1) ? 200 : 64);
    benchmark::DoNotOptimize(p);
  }
  free(p);
}

}  // namespace

BENCHMARK(BM_MallocFree)->Arg(64)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_Memcpy)->Arg(64)->Arg(4096)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_Realloc)->Threads(1)->Threads(2)->UseRealTime();

BENCHMARK_MAIN();
