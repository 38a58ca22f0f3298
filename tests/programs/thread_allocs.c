// THREADS threads, each doing COUNT malloc+free pairs of size 16 + i % 100.
// Usage: thread_allocs THREADS COUNT. With COUNT a multiple of 100 each thread
// requests COUNT * 16 + (COUNT / 100) * 4950 bytes.
#include <pthread.h>
#include <stdlib.h>

static long count;

static void* work(void* arg) {
  (void)arg;
  for (long i = 0; i < count; ++i) {
    volatile char* p = malloc(16 + (size_t)(i % 100));
    p[0] = 1;
    free((void*)p);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  int threads = atoi(argv[1]);
  count = atol(argv[2]);
  pthread_t ids[64];
  if (threads > 64) return 2;
  for (int t = 0; t < threads; ++t)
    if (pthread_create(&ids[t], NULL, work, NULL) != 0) return 3;
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  return 0;
}
