// SIGALRM every millisecond (setitimer) for MS milliseconds; the handler
// allocates, copies and frees while the main loop does the same. Both count
// their own calls. glibc's malloc is not async-signal-safe, so the main loop
// blocks SIGALRM around its allocator calls; its copies run unblocked (the
// handler's counting interrupts the shim's counting of a copy). The totals are printed as
// malloc_calls=... malloc_bytes=... free_calls=... copied_calls=... copied_bytes=... signals=...
// Usage: signal_alloc MS
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "say.h"

static volatile sig_atomic_t h_malloc, h_bytes, h_free, h_copies, h_copied, h_signals;

static void on_alarm(int sig) {
  (void)sig;
  int saved = errno;
  char buf[256];
  size_t n = 50 + (size_t)h_signals % 200;
  char* p = malloc(n);
  memcpy(p, buf, n);
  char* q = calloc(2, n);
  memmove(q, p, n);
  free(p);
  free(q);
  h_malloc += 2, h_bytes += (sig_atomic_t)(3 * n), h_free += 2, h_copies += 2,
      h_copied += (sig_atomic_t)(2 * n), h_signals += 1;
  errno = saved;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  long ms = atol(argv[1]);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  sigset_t alarm_only;
  sigemptyset(&alarm_only);
  sigaddset(&alarm_only, SIGALRM);
  struct itimerval it = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &it, NULL);
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned long m_malloc = 0, m_bytes = 0, m_free = 0, m_copies = 0, m_copied = 0;
  char src[512], dst[512];
  memset(src, 1, sizeof src);
  for (unsigned i = 0;; ++i) {
    size_t n = 1 + i % 500;
    sigprocmask(SIG_BLOCK, &alarm_only, NULL);
    char* p = malloc(n);
    sigprocmask(SIG_UNBLOCK, &alarm_only, NULL);
    memcpy(p, src, n);
    sigprocmask(SIG_BLOCK, &alarm_only, NULL);
    p = realloc(p, n + 1000);
    sigprocmask(SIG_UNBLOCK, &alarm_only, NULL);
    memcpy(dst, p, n);
    sigprocmask(SIG_BLOCK, &alarm_only, NULL);
    free(p);
    sigprocmask(SIG_UNBLOCK, &alarm_only, NULL);
    m_malloc += 2, m_bytes += n + n + 1000, m_free += 1, m_copies += 2, m_copied += 2 * n;
    if (i % 64 == 0) {
      clock_gettime(CLOCK_MONOTONIC, &now);
      if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >= ms) break;
    }
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  say("malloc_calls=%lu malloc_bytes=%lu free_calls=%lu copied_calls=%lu copied_bytes=%lu "
      "signals=%lu\n",
      m_malloc + (unsigned long)h_malloc, m_bytes + (unsigned long)h_bytes,
      m_free + (unsigned long)h_free, m_copies + (unsigned long)h_copies,
      m_copied + (unsigned long)h_copied, (unsigned long)h_signals);
  return 0;
}
