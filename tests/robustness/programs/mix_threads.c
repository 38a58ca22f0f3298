// THREADS threads call every interposed malloc and copy function for MS
// milliseconds, each counting its own calls and bytes; the totals are printed
// as malloc_calls=... malloc_bytes=... free_calls=... copied_calls=...
// copied_bytes=... (MS = 0: the threads start and stop without a call).
// Usage: mix_threads THREADS MS
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <wchar.h>

#include "say.h"

void* __memcpy_chk(void* dst, const void* src, size_t n, size_t dstlen);
void* __memmove_chk(void* dst, const void* src, size_t n, size_t dstlen);
void* __mempcpy_chk(void* dst, const void* src, size_t n, size_t dstlen);

struct Counts {
  unsigned long malloc_calls, malloc_bytes, free_calls, copied_calls, copied_bytes;
};

static atomic_int stop;
static atomic_int started;

static void* work(void* arg) {
  struct Counts* c = arg;
  char src[4096], dst[4096];
  wchar_t wsrc[256], wdst[256];
  memset(src, 'x', sizeof src);  // not counted: memset is not interposed
  wmemset(wsrc, L'y', 256);
  atomic_fetch_add(&started, 1);
  unsigned i = 0;
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    size_t n = 1 + (i * 37u) % 2000;
    void* p[9];
    p[0] = malloc(n);
    p[1] = calloc(3, n);
    p[2] = realloc(NULL, n);
    p[2] = realloc(p[2], n * 2);
    p[3] = reallocarray(NULL, 2, n);
    p[4] = memalign(64, n);
    p[5] = aligned_alloc(32, 64 * (1 + i % 4));
    if (posix_memalign(&p[6], 128, n) != 0) p[6] = NULL;
    p[7] = valloc(n);
    p[8] = pvalloc(n);
    c->malloc_calls += 10;
    c->malloc_bytes += n + 3 * n + n + 2 * n + 2 * n + n + 64 * (1 + i % 4) + n + n + n;
    size_t m = n % 1024;
    memcpy(dst, src, m);
    memmove(dst + 1, dst, m);
    mempcpy(dst, src, m);
    bcopy(src, dst, m);
    __memcpy_chk(dst, src, m, sizeof dst);
    __memmove_chk(dst, src, m, sizeof dst);
    __mempcpy_chk(dst, src, m, sizeof dst);
    wmemcpy(wdst, wsrc, m % 256);
    wmemmove(wdst, wsrc, m % 256);
    c->copied_calls += 9;
    c->copied_bytes += 7 * m + 2 * (m % 256) * sizeof(wchar_t);
    for (int k = 0; k < 9; ++k) free(p[k]);
    free(NULL);
    c->free_calls += 10;
    ++i;
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int threads = atoi(argv[1]);
  long ms = atol(argv[2]);
  if (threads < 1 || threads > 64) return 2;
  static struct Counts counts[64];
  pthread_t ids[64];
  if (ms == 0) atomic_store(&stop, 1);
  for (int t = 0; t < threads; ++t)
    if (pthread_create(&ids[t], NULL, work, &counts[t]) != 0) return 3;
  while (atomic_load(&started) < threads) sched_yield();
  struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&d, &d) != 0) {
  }
  atomic_store(&stop, 1);
  struct Counts sum = {0, 0, 0, 0, 0};
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    sum.malloc_calls += counts[t].malloc_calls;
    sum.malloc_bytes += counts[t].malloc_bytes;
    sum.free_calls += counts[t].free_calls;
    sum.copied_calls += counts[t].copied_calls;
    sum.copied_bytes += counts[t].copied_bytes;
  }
  say("malloc_calls=%lu malloc_bytes=%lu free_calls=%lu copied_calls=%lu copied_bytes=%lu\n",
      sum.malloc_calls, sum.malloc_bytes, sum.free_calls, sum.copied_calls, sum.copied_bytes);
  return 0;
}
