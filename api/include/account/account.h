/* account's in-test C API: what the shim (libaccount.so) has counted in this
 * process, read from inside the process itself, for budgets in a project's own
 * tests (docs/budgets.md).
 *
 * Link with account::api (CMake) or `pkg-config --libs account`, and run the
 * test with the shim preloaded (`account run -- ./test`, or
 * LD_PRELOAD=libaccount.so). Without the shim every call is safe:
 * account_counting() is 0 and account_snapshot() says so and fills nothing.
 *
 * Stable ABI: struct account_counters only ever grows at its end; a caller sets
 * `size` to the sizeof it was compiled with and gets the fields it knows. */
#ifndef ACCOUNT_ACCOUNT_H
#define ACCOUNT_ACCOUNT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ACCOUNT_COUNTERS_VERSION 1

enum account_scope {
  ACCOUNT_THREAD = 0, /* the calling thread, since it started */
  ACCOUNT_PROCESS = 1 /* every thread of the process image, exited ones too */
};

/* Counts since the thread started (ACCOUNT_THREAD) or since the process image
 * started (ACCOUNT_PROCESS); take two snapshots and subtract for a window. */
struct account_counters {
  uint32_t size;         /* in: sizeof(struct account_counters) of the caller */
  uint32_t version;      /* out: the shim's ACCOUNT_COUNTERS_VERSION */
  uint64_t malloc_calls; /* malloc, calloc, realloc, memalign... calls */
  uint64_t malloc_bytes; /* bytes those calls asked for (requested) */
  uint64_t free_calls;
  uint64_t realloc_copied_bytes; /* bytes realloc moved to a new block */
  uint64_t copied_calls;         /* memcpy, memmove, mempcpy... and libc's own copies */
  uint64_t copied_bytes;
  /* Live heap in usable bytes (malloc_usable_size: what the allocator gave,
   * at least what was asked). ACCOUNT_THREAD: the net of the thread's own
   * allocations and frees, negative when it freed more than it allocated.
   * ACCOUNT_PROCESS: the process's live heap (with several threads, off by
   * at most 256 KiB for each other thread: they publish their changes in
   * steps of that size). */
  int64_t heap_live_bytes;
  /* The highest heap_live_bytes since the scope's last account_peak_reset()
   * (or its start). */
  int64_t heap_peak_bytes;
  /* The largest single request since the thread's last
   * account_peak_reset(ACCOUNT_THREAD) (or its start); for ACCOUNT_PROCESS
   * the largest of every thread's. */
  uint64_t largest_malloc_bytes;
};

/* 1 when the shim is loaded and counts this process's malloc calls, else 0. */
int account_counting(void);

/* Fills *out (set out->size first) and returns 0; returns -1 and fills
 * nothing when nothing is counted: no shim, another allocator ahead of the
 * shim, or (ACCOUNT_THREAD) a thread beyond the shim's 1023 slots. At most
 * 100 ns for ACCOUNT_THREAD (perf-tests/snapshot-bench). */
int account_snapshot(struct account_counters* out, enum account_scope scope);

/* Starts a new peak window for heap_peak_bytes (and, for ACCOUNT_THREAD or the
 * calling thread of ACCOUNT_PROCESS, largest_malloc_bytes) at the live heap.
 * The record's heap_peak_bytes stays the image's lifetime peak. Returns 0, or
 * -1 when nothing is counted. */
int account_peak_reset(enum account_scope scope);

/* Where the calling thread's largest request since its last
 * account_peak_reset() (largest_malloc_bytes) came from: fills frames[0..max)
 * with return addresses, innermost (the allocating function's caller of
 * malloc) first, and returns how many. 0 when that request's stack was not
 * captured: backtraces are off, or ACCOUNT_BACKTRACE_MIN is above its size.
 * -1 when nothing is counted. */
int account_largest_malloc_stack(void** frames, int max);

#ifdef __cplusplus
}
#endif

#endif /* ACCOUNT_ACCOUNT_H */
