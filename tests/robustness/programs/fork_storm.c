// Forks CHILDREN short-lived children; while every other fourth child is forked
// THREADS extra threads are running malloc/free loops in the parent. Children
// allocate, then leave by exit or _exit in turn. Prints "pid=P" and one
// "child=C" line per child; exit status 0 when every child exited with 0.
// Usage: fork_storm CHILDREN THREADS
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "say.h"

static atomic_int stop;

static void* churn(void* arg) {
  (void)arg;
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) free(malloc(100));
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int children = atoi(argv[1]), threads = atoi(argv[2]);
  if (threads > 16) return 2;
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
