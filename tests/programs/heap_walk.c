// A long pseudo-random walk of malloc, calloc, realloc and free on one thread,
// with blocks from 16 bytes to 300 KiB: live heap rises to new peaks many times
// and moves by more than the shim's 256 KiB publish step in both directions.
// Tracks live usable bytes with malloc_usable_size, as the shim does, and prints
//   expected_heap_peak=N peaks=P
// (P: how many calls set a new peak). No stdio: nothing else allocates.
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "say.h"

enum { kBlocks = 512, kSteps = 200000 };

static long long live, peak, peaks;
static uint32_t seed = 2463534242u;

static uint32_t next(void) {
  seed ^= seed << 13;
  seed ^= seed >> 17;
  seed ^= seed << 5;
  return seed;
}

static void grew(void) {
  if (live > peak) {
    peak = live;
    ++peaks;
  }
}

static size_t pick_size(void) {
  uint32_t r = next();
  if ((r & 63) == 0) return 100000 + (r >> 8) % 200000;  // occasionally large
  return 16 + (r >> 8) % 4000;
}

int main(void) {
  void* block[kBlocks] = {0};
  for (long step = 0; step < kSteps; ++step) {
    // Phases of growth and shrinkage, so the walk keeps finding new peaks.
    int grow = (step / 5000) % 3 != 2;
    uint32_t r = next();
    int at = (int)(r % kBlocks);
    if (block[at] && (!grow || (r & 0x300) == 0)) {
      live -= (long long)malloc_usable_size(block[at]);
      free(block[at]);
      block[at] = NULL;
    } else if (block[at]) {
      long long before = (long long)malloc_usable_size(block[at]);
      block[at] = realloc(block[at], pick_size());
      if (!block[at]) abort();
      live += (long long)malloc_usable_size(block[at]) - before;
      grew();
    } else if (grow || (r & 0xc00) == 0) {
      size_t n = pick_size();
      block[at] = (r & 0x1000) ? calloc(1, n) : malloc(n);
      if (!block[at]) abort();
      live += (long long)malloc_usable_size(block[at]);
      grew();
    }
  }
  for (int i = 0; i < kBlocks; ++i) {
    if (block[i]) live -= (long long)malloc_usable_size(block[i]);
    free(block[i]);
  }
  say("expected_heap_peak=%lld peaks=%lld live_at_end=%lld\n", peak, peaks, live);
  return 0;
}
