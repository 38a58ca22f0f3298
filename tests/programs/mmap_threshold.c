// Prints whether a 200000-byte block is mmapped (glibc: above the 128 KiB
// threshold, unless something freed a larger mmapped block and raised it).
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
int main() {
  void* p = malloc(200000);
  uint64_t h = ((uint64_t*)p)[-1];
  printf("200000-byte block mmapped=%d\n", (int)((h >> 1) & 1));
  free(p);
  return 0;
}
