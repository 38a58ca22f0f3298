// Built with GCC's -fsanitize=address (its runtime a shared library,
// libasan.so): allocates two blocks of 5000 bytes, copies one into the other
// with memcpy, prints "sum 14".
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  char* a = malloc(5000);
  char* b = malloc(5000);
  memset(a, 7, 5000);
  memcpy(b, a, 5000);
  printf("sum %d\n", b[0] + b[4999]);
  free(a);
  free(b);
  return 0;
}
