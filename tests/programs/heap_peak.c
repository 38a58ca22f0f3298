// A known allocate-then-free pattern. Tracks live usable bytes with
// malloc_usable_size (as the shim does), prints the peak it saw:
//   expected_heap_peak=N
// Nothing else allocates in this program (no stdio), so the record's
// heap_peak_bytes must equal N.
#include <malloc.h>
#include <stdlib.h>

#include "say.h"

static long long live, peak;

static void* take(size_t n) {
  void* p = malloc(n);
  live += (long long)malloc_usable_size(p);
  if (live > peak) peak = live;
  return p;
}

static void give(void* p) {
  live -= (long long)malloc_usable_size(p);
  free(p);
}

int main(void) {
  void* small[100];
  for (int i = 0; i < 100; ++i) small[i] = take(1000 + (size_t)i);
  for (int i = 0; i < 100; i += 2) give(small[i]);
  void* big = take(3u << 20);  // mmapped
  void* mid[10];
  for (int i = 0; i < 10; ++i) mid[i] = take(50000);
  // A realloc that grows: live changes by the difference of usable sizes.
  long long before = (long long)malloc_usable_size(mid[0]);
  mid[0] = realloc(mid[0], 90000);
  live += (long long)malloc_usable_size(mid[0]) - before;
  if (live > peak) peak = live;
  give(big);
  for (int i = 0; i < 10; ++i) give(mid[i]);
  for (int i = 1; i < 100; i += 2) give(small[i]);
  void* after = take(1u << 20);  // below the peak
  give(after);
  say("expected_heap_peak=%lld live_at_end=%lld\n", peak, live);
  return 0;
}
