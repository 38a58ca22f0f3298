// Runs on whichever allocator the process has (glibc's, or jemalloc/tcmalloc
// linked in or preloaded) and prints what only that allocator would answer:
//   usable(100)=N calls=C frees=F bytes=B ok
// N is 104 with glibc and 112 with jemalloc and tcmalloc; C, F and B are the
// malloc-family calls, frees and bytes this program made itself. With the
// argument `fork`, a child it forks at the end exits without a call. A shim that
// sent some calls to another allocator than the program's own would crash it
// (a block freed by the wrong allocator) or change N.
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "say.h"

static unsigned long calls, frees, bytes;

#ifdef HOLD_MALLOC_ADDRESS
// Built as a non-PIE executable that keeps malloc's address, as Debian's
// python3.11 is: the link gives it a canonical PLT entry named malloc (an
// undefined symbol with a value), which dlsym names instead of the definition.
// Taken in code (an absolute address, not a dynamic relocation of data).
static void* (*volatile program_malloc)(size_t);
#define HOLD_MALLOC() (program_malloc = malloc)
#define malloc(n) program_malloc(n)
#else
#define HOLD_MALLOC() ((void)0)
#endif

static void* counted(void* p, size_t n) {
  ++calls;
  bytes += n;
  if (!p) abort();
  return p;
}

static void release(void* p) {
  ++frees;
  free(p);
}

int main(int argc, char** argv) {
  HOLD_MALLOC();
  void* keep[64];
  for (int i = 0; i < 1000; ++i) {
    size_t n = 16 + (size_t)(i * 37) % 3000;
    void* p = counted(malloc(n), n);
    memset(p, i, n);
    if (i % 16 == 0)
      keep[i / 16] = p;
    else
      release(p);
  }
  void* z = counted(calloc(100, 10), 1000);
  z = counted(realloc(z, 100000), 100000);
  void* a = NULL;
  if (posix_memalign(&a, 64, 256) != 0) abort();
  counted(a, 256);
  void* b = counted(aligned_alloc(64, 512), 512);
  void* m = counted(memalign(128, 300), 300);
  char* s = strdup("a string libc copies with its own malloc call");
  if (!s) abort();
  size_t usable = malloc_usable_size(keep[1] = realloc(keep[1], 100));
  counted(keep[1], 100);
  release(s);
  release(z);
  release(a);
  release(b);
  release(m);
  for (int i = 0; i < 63; ++i) release(keep[i]);
  say("usable(100)=%zu calls=%lu frees=%lu bytes=%lu ok\n", usable, calls, frees, bytes);
  if (argc > 1 && strcmp(argv[1], "fork") == 0) {
    pid_t child = fork();
    if (child == 0) exit(0);
    int status;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return 1;
  }
  return 0;
}
