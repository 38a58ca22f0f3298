#include <account/benchmark.h>
#include <stdlib.h>

static void* (*volatile do_malloc)(size_t) = malloc;

static void BM_Take4096(benchmark::State& state) {
  account::CopiedCounters copies(state);
  for (auto _ : state) free(do_malloc(4096));
}
BENCHMARK(BM_Take4096)->Iterations(100);

int main(int argc, char** argv) {
  account::register_memory_manager();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
