// malloc/free-heavy workload for perf-tests/overhead.sh.
//
// usage: malloc_loop STEPS [THREADS [use|calls]]
// Each thread keeps a ring of 256 live blocks; every step frees the oldest and
// allocates a new one of a pseudo-random size (16..1039 bytes). STEPS is the
// total over all threads. In `use` mode (the default) a step also does what a
// program does with its memory: it fills the new block (memset) and, before
// freeing a block, sums its 8-byte words; 25 M steps take 1-5 s, as issue 7's
// workload. In `calls` mode it only touches the first byte: nothing but the
// calls, the worst case for any interposer. Prints the checksum and the exact
// calls/bytes it made so a tool's totals can be checked against it.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kRing = 256 };

// One per thread, each on its own cache lines: the loop's own bookkeeping must
// not make the threads contend (that would hide the tool's cost or add noise).
typedef struct {
  _Alignas(128) long steps;
  int use;
  unsigned seed;
  uint64_t bytes;
  uint64_t sum;
} Work;

static void* run(void* arg) {
  Work* w = (Work*)arg;
  char* ring[kRing] = {0};
  size_t sizes[kRing] = {0};
  uint32_t x = w->seed;
  uint64_t bytes = 0, sum = 0;  // locals: stored to *w once, at the end
  for (long i = 0; i < w->steps; ++i) {
    x = x * 1664525u + 1013904223u;
    size_t size = 16 + ((x >> 16) & 1023);
    int at = (int)(i % kRing);
    if (w->use && ring[at]) {
      const uint64_t* words = (const uint64_t*)ring[at];
      for (size_t k = 0; k < sizes[at] / 8; ++k) sum += words[k];
    }
    free(ring[at]);
    char* p = malloc(size);
    if (!p) abort();
    if (w->use) {
      memset(p, (int)i, size);
    } else {
      p[0] = (char)i;
      sum += (unsigned char)p[0];
    }
    bytes += size;
    ring[at] = p;
    sizes[at] = size;
  }
  w->bytes = bytes;
  w->sum = sum;
  for (int i = 0; i < kRing; ++i) free(ring[i]);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s STEPS [THREADS [use|calls]]\n", argv[0]);
    return 2;
  }
  long steps = atol(argv[1]);
  int threads = argc > 2 ? atoi(argv[2]) : 1;
  if (threads < 1 || threads > 64) threads = 1;
  int use = !(argc > 3 && strcmp(argv[3], "calls") == 0);
  pthread_t tid[64];
  Work work[64];
  for (int t = 0; t < threads; ++t) {
    work[t].steps = steps / threads;
    work[t].use = use;
    work[t].seed = 12345u + (unsigned)t;
    work[t].bytes = 0;
    work[t].sum = 0;
  }
  if (threads == 1) {
    run(&work[0]);
  } else {
    for (int t = 0; t < threads; ++t)
      if (pthread_create(&tid[t], NULL, run, &work[t]) != 0) abort();
    for (int t = 0; t < threads; ++t) pthread_join(tid[t], NULL);
  }
  uint64_t bytes = 0, sum = 0, calls = 0;
  for (int t = 0; t < threads; ++t) {
    bytes += work[t].bytes;
    sum += work[t].sum;
    calls += (uint64_t)work[t].steps;
  }
  // One line the harness reads: what the loop itself allocated.
  printf("malloc_loop calls=%llu bytes=%llu sum=%llu\n", (unsigned long long)calls,
         (unsigned long long)bytes, (unsigned long long)sum);
  return 0;
}
