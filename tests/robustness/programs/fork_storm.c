// Forks CHILDREN short-lived children; while every other fourth child is forked
// THREADS extra threads are running malloc/free and snprintf loops in the
// parent (snprintf copies inside libc: issue 17's counted libc copies). Child
// i allocates 1000 + i bytes and snprintfs a string of 1000 + i bytes (one
// mempcpy inside libc), then leaves by exit or _exit in turn. Prints "pid=P"
// and one "child=C" line per child; exit status 0 when every child exited
// with 0.
// Usage: fork_storm CHILDREN THREADS
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "say.h"

static atomic_int stop;
static char text[2001];  // 2000 'x'
static char child_buffer[2100];

static void* churn(void* arg) {
  (void)arg;
  char buffer[600];
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    free(malloc(100));
    snprintf(buffer, sizeof buffer, "%s", text + 1500);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int children = atoi(argv[1]), threads = atoi(argv[2]);
  if (threads > 16 || children > 1000) return 2;
  memset(text, 'x', 2000);
  say("pid=%d\n", (int)getpid());
  pthread_t ids[16];
  int failed = 0;
  for (int i = 0; i < children; ++i) {
    int threaded = i % 8 >= 4;
    if (threaded && i % 8 == 4) {
      atomic_store(&stop, 0);
      for (int t = 0; t < threads; ++t) pthread_create(&ids[t], NULL, churn, NULL);
    }
    pid_t pid = fork();
    if (pid < 0) return 3;
    if (pid == 0) {
      free(malloc(1000 + (size_t)i));
      snprintf(child_buffer, sizeof child_buffer, "%s", text + 1000 - i);
      if (i % 2) _exit(0);
      exit(0);
    }
    say("child=%d\n", (int)pid);
    if (threaded && i % 8 == 7) {
      atomic_store(&stop, 1);
      for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
    }
    // Reap some at once, let the rest pile up.
    if (i % 3 == 0) {
      int status;
      if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) failed = 1;
    }
  }
  atomic_store(&stop, 1);
  if (children % 8 > 4)
    for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  int status;
  pid_t w;
  while ((w = wait(&status)) > 0)
    if (!WIFEXITED(status) || WEXITSTATUS(status)) failed = 1;
  return failed;
}
