// N calls of one interposed entry point, for per_call_cost.sh: the cost of a
// call is the difference between N calls and none, so the start-up and the
// loop's own setup cancel. Built with -fno-builtin: every call goes through
// the PLT, as a program's calls do.
//
// usage: call_loop ENTRY N
//   pair     N times malloc(64) and free of it: a steady heap, as most calls are
//   malloc   N mallocs of 64 bytes, kept (freed by the exit): a growing heap,
//            a new peak at every call
//   free     the same N mallocs, then N frees (free's cost: this minus malloc's)
//   calloc   N times calloc(1, 64) and free of it
//   realloc  one block, N reallocs between 64 and 200 bytes
//   memcpy, memmove, mempcpy   N copies of 64 bytes
//   libc     N fwrites of 64 bytes into a 64 KiB FILE buffer on /dev/null:
//            glibc copies each into the buffer with its own mempcpy, a copy
//            inside the C library (docs/libc-copies.md)
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static char a[256], b[256];

// The calls measured, and only they: per_call_cost.sh counts this function's
// instructions (callgrind --toggle-collect), so the start and the exit, whose
// record varies in length from run to run, stay out. Not static, never
// inlined or cloned: callgrind finds it by this name.
__attribute__((noinline, noclone)) int call_loop_measured(const char* entry, long n, void** kept) {
  unsigned long sum = 0;
  if (strcmp(entry, "pair") == 0) {
    for (long i = 0; i < n; ++i) {
      char* p = malloc(64);
      sum += (unsigned long)(p != NULL);
      free(p);
    }
  } else if (strcmp(entry, "malloc") == 0 || strcmp(entry, "free") == 0) {
    for (long i = 0; i < n; ++i) kept[i] = malloc(64);
    if (entry[0] == 'f')
      for (long i = 0; i < n; ++i) free(kept[i]);
  } else if (strcmp(entry, "calloc") == 0) {
    for (long i = 0; i < n; ++i) {
      char* p = calloc(1, 64);
      sum += (unsigned long)(p != NULL);
      free(p);
    }
  } else if (strcmp(entry, "realloc") == 0) {
    void* p = malloc(64);
    for (long i = 0; i < n; ++i) p = realloc(p, (i & 1) ? 64 : 200);
    sum += (unsigned long)(p != NULL);
  } else if (strcmp(entry, "memcpy") == 0) {
    for (long i = 0; i < n; ++i) memcpy(a, b + (i & 63), 64);
  } else if (strcmp(entry, "memmove") == 0) {
    for (long i = 0; i < n; ++i) memmove(a, a + 1 + (i & 63), 64);
  } else if (strcmp(entry, "mempcpy") == 0) {
    for (long i = 0; i < n; ++i) sum += (unsigned long)(mempcpy(a, b + (i & 63), 64) != NULL);
  } else if (strcmp(entry, "libc") == 0) {
    FILE* f = fopen("/dev/null", "w");
    static char buffer[64 * 1024];
    if (!f || setvbuf(f, buffer, _IOFBF, sizeof buffer) != 0) return 1;
    for (long i = 0; i < n; ++i) fwrite(b + (i & 63), 1, 64, f);
    fclose(f);
  } else {
    fprintf(stderr, "call_loop: unknown entry %s\n", entry);
    return 2;
  }
  return (int)(sum + (unsigned char)a[0]) == -1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: call_loop ENTRY N\n");
    return 2;
  }
  long n = atol(argv[2]);
  // The blocks' pointers live outside the heap, so the loop allocates only
  // what it measures.
  void** kept = mmap(NULL, (size_t)(n > 0 ? n : 1) * sizeof(void*), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (kept == MAP_FAILED) return 1;
  return call_loop_measured(argv[1], n, kept);
}
