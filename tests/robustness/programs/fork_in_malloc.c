// A thread allocates and frees without pause while the main thread forks
// ROUNDS times; each child allocates (the allocator's locks must be usable)
// and exits. Exit status 0 when every child exited with 0.
// Usage: fork_in_malloc ROUNDS
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "say.h"

static atomic_int stop;

static void* churn(void* arg) {
  (void)arg;
  unsigned i = 0;
  while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
    void* p = malloc(16 + (i * 7919u) % 300000);  // small and mmap-sized
    void* q = calloc(1, 64);
    p = realloc(p, 32 + i % 1000);
    free(q);
    free(p);
    ++i;
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  int rounds = atoi(argv[1]);
  pthread_t ids[2];
  for (int t = 0; t < 2; ++t) pthread_create(&ids[t], NULL, churn, NULL);
  int failed = 0;
  for (int i = 0; i < rounds; ++i) {
    pid_t pid = fork();
    if (pid < 0) return 3;
    if (pid == 0) {
      char* p = malloc(4096);
      memset(p, 1, 4096);
      free(p);
      _exit(0);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) failed = 1;
  }
  atomic_store(&stop, 1);
  for (int t = 0; t < 2; ++t) pthread_join(ids[t], NULL);
  say("pid=%d rounds=%d\n", (int)getpid(), rounds);
  return failed;
}
