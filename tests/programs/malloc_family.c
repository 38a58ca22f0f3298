#define _GNU_SOURCE
// One call of every interposed malloc-family function, the failing ones
// included, with known sizes. Prints what each failure case returned so a test
// can compare the program's behaviour with and without the shim.
//
// Expected: malloc_calls 17, malloc_bytes 3438, free_calls 10 (see the table in
// tests/libaccount/counts_test.cc).
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "say.h"

// Held in volatiles so the compiler neither warns about nor folds the
// overflowing requests.
static volatile size_t huge_count = (size_t)1 << 62, half_max = SIZE_MAX / 2;

int main(void) {
  char* m = malloc(100);     // 1 call, 100 bytes
  void* zero = malloc(0);    // 1 call, 0 bytes
  void* c = calloc(10, 20);  // 1 call, 200 bytes
  errno = 0;
  void* c_over = calloc(huge_count, 8);  // 1 call, overflow: 0 bytes
  say("calloc_overflow=%s errno=%d\n", c_over ? "ptr" : "NULL", errno);
  m = realloc(m, 300);                   // 1 call, 300 bytes
  void* r = realloc(NULL, 50);           // 1 call, 50 bytes
  void* ra = reallocarray(NULL, 4, 25);  // 1 call, 100 bytes
  void* volatile ra_kept = ra;           // still ours after the failure below
  errno = 0;
  void* ra_over = reallocarray(ra, half_max, 4);  // 1 call, overflow: 0 bytes
  say("reallocarray_overflow=%s errno=%d\n", ra_over ? "ptr" : "NULL", errno);
  void* pm = NULL;
  int rc = posix_memalign(&pm, 64, 128);  // 1 call, 128 bytes
  say("posix_memalign_64=%d aligned=%d\n", rc, (int)((uintptr_t)pm % 64 == 0));
  void* bad = NULL;
  rc = posix_memalign(&bad, 3, 128);  // 1 call, 128 bytes, EINVAL
  say("posix_memalign_3=%d out=%s\n", rc, bad ? "ptr" : "NULL");
  rc = posix_memalign(&bad, 24, 64);  // 1 call, 64 bytes, EINVAL
  say("posix_memalign_24=%d out=%s\n", rc, bad ? "ptr" : "NULL");
  void* aa = aligned_alloc(64, 256);  // 1 call, 256 bytes
  say("aligned_alloc_64=%s aligned=%d\n", aa ? "ptr" : "NULL", (int)((uintptr_t)aa % 64 == 0));
  errno = 0;
  void* aa_odd = aligned_alloc(24, 48);  // 1 call, 48 bytes; leaked on purpose
  say("aligned_alloc_24=%s errno=%d\n", aa_odd ? "ptr" : "NULL", errno);
  void* ma = memalign(32, 64);  // 1 call, 64 bytes
  say("memalign_32=%s aligned=%d\n", ma ? "ptr" : "NULL", (int)((uintptr_t)ma % 32 == 0));
  void* va = valloc(1000);    // 1 call, 1000 bytes
  void* pva = pvalloc(1000);  // 1 call, 1000 bytes
  void* r0 = realloc(r, 0);   // 1 call, 0 bytes; frees r
  say("realloc_0=%s\n", r0 ? "ptr" : "NULL");
  free(NULL);                                                                          // 1 free
  free(zero);                                                                          // 1 free
  free(m), free(c), free(ra_kept), free(pm), free(aa), free(ma), free(va), free(pva);  // 8 frees
  return 0;
}
