// The C API from C: prints what account_counting, account_snapshot and
// account_peak_reset return; when counting, it first makes an 8 MiB peak and
// resets the process's peak window (the record must keep the lifetime peak):
//   counting=C snapshot=S reset=R stack=K   (K: account_largest_malloc_stack)
//   window_peak_above_live=N   (only when counting: 0 expected after the reset)
#include <account/account.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  if (account_counting()) {
    void* volatile big = malloc(8u << 20);
    free(big);
  }
  struct account_counters c = {.size = sizeof c};
  int snapshot = account_snapshot(&c, ACCOUNT_PROCESS);
  int reset = account_peak_reset(ACCOUNT_PROCESS);
  void* frames[8];
  int stack = account_largest_malloc_stack(frames, 8);
  printf("counting=%d snapshot=%d reset=%d stack=%d\n", account_counting(), snapshot, reset, stack);
  if (reset == 0 && account_snapshot(&c, ACCOUNT_PROCESS) == 0)
    printf("window_peak_above_live=%lld\n", (long long)(c.heap_peak_bytes - c.heap_live_bytes));
  return 0;
}
