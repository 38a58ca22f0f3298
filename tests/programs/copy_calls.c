#define _GNU_SOURCE
// One call of each interposed copy function with a distinct size, so a test can
// check each is counted: memcpy 1000, memmove 2000, mempcpy 3000, bcopy 4000,
// __memcpy_chk 5000, __memmove_chk 6000, __mempcpy_chk 7000, wmemcpy 100 (400
// bytes), wmemmove 200 (800 bytes). Built with -fno-builtin so every call is real.
// Exit status 3 if a _chk variant returns the wrong pointer. With an argument
// (memcpy, memmove or mempcpy) it calls that _chk variant with too small a
// destination: glibc's check aborts the program.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

void* __memcpy_chk(void*, const void*, size_t, size_t);
void* __memmove_chk(void*, const void*, size_t, size_t);
void* __mempcpy_chk(void*, const void*, size_t, size_t);

static char src[8192], dst[8192];
static wchar_t wsrc[256], wdst[256];

int main(int argc, char** argv) {
  if (argc > 1) {
    size_t n = 100, dstlen = 10;
    if (strcmp(argv[1], "memcpy") == 0) __memcpy_chk(dst, src, n, dstlen);
    if (strcmp(argv[1], "memmove") == 0) __memmove_chk(dst, src, n, dstlen);
    if (strcmp(argv[1], "mempcpy") == 0) __mempcpy_chk(dst, src, n, dstlen);
    return 0;
  }
  memcpy(dst, src, 1000);
  memmove(dst, src, 2000);
  mempcpy(dst, src, 3000);
  bcopy(src, dst, 4000);
  if (__memcpy_chk(dst, src, 5000, sizeof dst) != dst) return 3;
  if (__memmove_chk(dst, src, 6000, sizeof dst) != dst) return 3;
  if (__mempcpy_chk(dst, src, 7000, sizeof dst) != dst + 7000) return 3;
  wmemcpy(wdst, wsrc, 100);
  wmemmove(wdst, wsrc, 200);
  return dst[0];
}
