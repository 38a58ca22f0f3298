// Known allocations: 10 mallocs of 1000 bytes, 1 calloc(10, 100), 1 realloc to
// 5000 (moved or not), a 1 MiB block held while the others are live, then all
// freed. Expected (mallocs by main only): malloc_calls 13, malloc_bytes
// 10*1000 + 1000 + 5000 + 1048576, free_calls 12.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  void* blocks[10];
  for (int i = 0; i < 10; ++i) blocks[i] = malloc(1000);
  char* c = calloc(10, 100);
  c = realloc(c, 5000);
  void* big = malloc(1 << 20);
  for (int i = 0; i < 10; ++i) free(blocks[i]);
  free(c);
  free(big);
  return 0;
}
