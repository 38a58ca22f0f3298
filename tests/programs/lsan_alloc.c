// Built with GCC's -fsanitize=leak (its runtime a shared library, liblsan.so,
// whose allocator's usable size of a block is what was asked): makes blocks of
// 100, 3 x 50 and 1000 bytes, moves the first to 300 with realloc, copies 10
// bytes into it with memcpy, frees all but the 1000, writes "ok" (with write:
// no stdio buffer) and ends with the 1000-byte block live.
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void* kept;  // not static: a root LeakSanitizer sees

int main(void) {
  char* a = malloc(100);
  char* b = calloc(3, 50);
  kept = malloc(1000);
  if (!a || !b || !kept) return 1;
  a = realloc(a, 300);
  if (!a) return 1;
  memcpy(a, "0123456789", 10);
  if (write(1, a[9] == '9' ? "ok\n" : "no\n", 3) != 3) return 1;
  free(a);
  free(b);
  return 0;
}
