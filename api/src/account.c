/* The in-test C API over the shim's versioned entry points, found once with
 * dlsym(RTLD_DEFAULT): without the shim they are absent and nothing is counted. */
#define _GNU_SOURCE
#include <account/account.h>
#include <dlfcn.h>
#include <stddef.h>

typedef int (*snapshot_fn)(struct account_counters*, int);
typedef int (*peak_reset_fn)(int);
typedef int (*largest_stack_fn)(void**, int);

static snapshot_fn g_snapshot;
static peak_reset_fn g_peak_reset;
static largest_stack_fn g_largest_stack;
static int g_resolved;

/* dlsym may allocate (its error buffer): done at load, so that the first
 * snapshot, usually inside a measured window, allocates nothing. */
__attribute__((constructor)) static void resolve(void) {
  if (__atomic_load_n(&g_resolved, __ATOMIC_ACQUIRE)) return;
  __atomic_store_n(&g_snapshot, (snapshot_fn)dlsym(RTLD_DEFAULT, "account_shim_snapshot_v1"),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&g_peak_reset, (peak_reset_fn)dlsym(RTLD_DEFAULT, "account_shim_peak_reset_v1"),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&g_largest_stack,
                   (largest_stack_fn)dlsym(RTLD_DEFAULT, "account_shim_largest_stack_v1"),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&g_resolved, 1, __ATOMIC_RELEASE);
}

int account_snapshot(struct account_counters* out, enum account_scope scope) {
  resolve();
  snapshot_fn snapshot = __atomic_load_n(&g_snapshot, __ATOMIC_RELAXED);
  return snapshot && out ? snapshot(out, (int)scope) : -1;
}

int account_counting(void) {
  struct account_counters c = {.size = sizeof c};
  return account_snapshot(&c, ACCOUNT_PROCESS) == 0;
}

int account_peak_reset(enum account_scope scope) {
  resolve();
  peak_reset_fn reset = __atomic_load_n(&g_peak_reset, __ATOMIC_RELAXED);
  return reset ? reset((int)scope) : -1;
}

int account_largest_malloc_stack(void** frames, int max) {
  resolve();
  largest_stack_fn stack = __atomic_load_n(&g_largest_stack, __ATOMIC_RELAXED);
  return stack && frames && max >= 0 ? stack(frames, max) : -1;
}
