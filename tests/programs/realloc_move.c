// A realloc that must move (a neighbour blocks growth in place) and one that
// must not (a shrink). Prints
//   moved=1 shrink_moved=0 expected_realloc_copied=N
// where N = min(old usable size, new size) of the moving realloc.
#include <malloc.h>
#include <stdlib.h>

#include "say.h"

int main(void) {
  char* a = malloc(1000);
  char* wall = malloc(1000);  // keeps `a` from growing in place
  size_t old_usable = malloc_usable_size(a);
  char* moved = realloc(a, 100000);
  char* c = malloc(5000);
  char* shrunk = realloc(c, 100);
  size_t expected = old_usable < 100000 ? old_usable : 100000;
  say("moved=%d shrink_moved=%d expected_realloc_copied=%zu\n", moved != a, shrunk != c, expected);
  free(moved), free(wall), free(shrunk);
  return 0;
}
