// A Google Benchmark program with account::MemoryManager and
// account::CopiedCounters: each iteration allocates 1000 and 3000 bytes, frees
// them and copies 4096 bytes. tests/api/probe_test.cc checks its JSON output.
#include <account/benchmark.h>
#include <stdlib.h>
#include <string.h>

namespace {

void* (*volatile do_malloc)(size_t) = malloc;
void (*volatile do_free)(void*) = free;
void* (*volatile do_memcpy)(void*, const void*, size_t) = memcpy;
char g_from[4096], g_to[4096];

void BM_AllocateAndCopy(benchmark::State& state) {
  account::CopiedCounters copies(state);
  for (auto _ : state) {
    void* a = do_malloc(1000);
    void* b = do_malloc(3000);
    do_memcpy(g_to, g_from, sizeof g_to);
    do_free(b);
    do_free(a);
  }
}
BENCHMARK(BM_AllocateAndCopy)->Iterations(1000);

}  // namespace

int main(int argc, char** argv) {
  account::register_memory_manager();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
