#define _GNU_SOURCE
// errno after every malloc-family call that fails, and after free, each set
// to a sentinel first: a test compares the output with and without the shim,
// which must leave errno as the allocator leaves it (glibc's posix_memalign
// sets ENOMEM when it cannot allocate, although it reports through its result).
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "say.h"

// Held in volatiles so the compiler neither warns about nor folds the
// impossible requests.
static volatile size_t huge = SIZE_MAX - 4096, half_max = SIZE_MAX / 2, big_align = (size_t)1 << 62;

#define SENTINEL 77

static void show(const char* what, const void* p) {
  int e = errno;
  say("%s=%s errno=%d\n", what, p ? "ptr" : "NULL", e);
}

int main(void) {
  void* out = NULL;
  errno = SENTINEL;
  int rc = posix_memalign(&out, 64, huge);
  int e = errno;
  say("posix_memalign_huge=%d errno=%d\n", rc, e);
  errno = SENTINEL;
  rc = posix_memalign(&out, 3, 64);
  e = errno;
  say("posix_memalign_3=%d errno=%d\n", rc, e);
  errno = SENTINEL;
  show("malloc_huge", malloc(huge));
  errno = SENTINEL;
  show("calloc_overflow", calloc(half_max, 3));
  errno = SENTINEL;
  show("aligned_alloc_huge_alignment", aligned_alloc(big_align, 16));
  errno = SENTINEL;
  show("memalign_huge", memalign(64, huge));
  errno = SENTINEL;
  show("valloc_huge", valloc(huge));
  errno = SENTINEL;
  show("pvalloc_huge", pvalloc(huge));
  errno = SENTINEL;
  show("reallocarray_overflow", reallocarray(NULL, half_max, 3));
  void* kept = malloc(10);
  errno = SENTINEL;
  show("realloc_huge", realloc(kept, huge));
  errno = SENTINEL;
  free(kept);
  e = errno;
  say("free errno=%d\n", e);
  errno = SENTINEL;
  free(NULL);
  e = errno;
  say("free_null errno=%d\n", e);
  return 0;
}
