// Heap peak across threads, in phases one thread at a time (barriers between):
//   1. each of 4 threads in turn allocates 8 MiB in 4 KiB blocks and keeps it;
//   2. thread 0 frees all of its blocks;
//   3. thread 1 allocates 12 MiB more.
// Live heap peaks after phase 3 at 36 MiB plus the first 32 MiB's usable slack;
// had thread 0's frees not reached the shared total, a tool would see 44 MiB.
// Prints what malloc_usable_size says:
//   expected_heap_peak=N
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>

#include "say.h"

enum { kThreads = 4, kBlock = 4096, kPerThread = 8 << 20, kExtra = 12 << 20 };

static pthread_barrier_t barrier;
static long long live[kThreads];  // each written by its own thread only

static void** allocate(int me, size_t total) {
  size_t n = total / kBlock;
  void** blocks = malloc(n * sizeof(void*));
  live[me] += (long long)malloc_usable_size(blocks);
  for (size_t i = 0; i < n; ++i) {
    blocks[i] = malloc(kBlock);
    live[me] += (long long)malloc_usable_size(blocks[i]);
  }
  return blocks;
}

static void* run(void* arg) {
  int me = (int)(long)arg;
  void** mine = NULL;
  void** extra = NULL;
  for (int turn = 0; turn < kThreads; ++turn) {
    if (turn == me) mine = allocate(me, kPerThread);
    pthread_barrier_wait(&barrier);
  }
  if (me == 0) {
    for (size_t i = 0; i < kPerThread / kBlock; ++i) {
      live[me] -= (long long)malloc_usable_size(mine[i]);
      free(mine[i]);
      mine[i] = NULL;
    }
  }
  pthread_barrier_wait(&barrier);
  if (me == 1) extra = allocate(me, kExtra);
  pthread_barrier_wait(&barrier);
  if (me == 0) {
    long long total = 0;
    for (int t = 0; t < kThreads; ++t) total += live[t];
    say("expected_heap_peak=%lld\n", total);
  }
  pthread_barrier_wait(&barrier);
  (void)extra;  // the process exits with everything still allocated
  return NULL;
}

int main(void) {
  pthread_t tid[kThreads];
  pthread_barrier_init(&barrier, NULL, kThreads);
  for (long t = 0; t < kThreads; ++t)
    if (pthread_create(&tid[t], NULL, run, (void*)t) != 0) abort();
  for (int t = 0; t < kThreads; ++t) pthread_join(tid[t], NULL);
  return 0;
}
