#define _GNU_SOURCE
// Copies that glibc makes inside itself, in known amounts, and one direct
// memcpy. Usage: libc_copies FILE [0|1]
//   to FILE (fully buffered, 8 KiB, flushed after each call): fwrite 1000
//   bytes, fputs a 500-byte string, fprintf "%s" of a 300-byte string;
//   to stdout: printf "%s" of a 400-byte string; strdup of a 2000-byte string
//   (2001 bytes with its NUL). Each of those bytes passes through a memcpy or
//   mempcpy inside libc (stdio copies into the FILE buffer; strdup copies).
//   A direct memcpy of 12345 bytes (built with -fno-builtin: a real call).
//   With "1": a realloc that moves a 1000-byte block (a neighbour blocks growth
//   in place); glibc moves it with its own memcpy.
// Prints (after the printf line, with say: no stdio)
//   libc_at_least=N direct=12345 moved=M expected_realloc_copied=K
// with the same digit counts in both modes, so that the copies the printing
// itself makes are the same.
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "say.h"

static char block[3000];
static char s500[501], s300[301], s400[401], s2000[2001];
static char src[12345], dst[12345];
static char file_buffer[8192];

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int do_realloc = argc > 2 && argv[2][0] == '1';
  memset(block, 'a', sizeof block);
  memset(s500, 'b', 500);
  memset(s300, 'c', 300);
  memset(s400, 'd', 400);
  memset(s2000, 'e', 2000);

  FILE* f = fopen(argv[1], "w");
  if (!f) return 3;
  setvbuf(f, file_buffer, _IOFBF, sizeof file_buffer);
  fwrite(block, 1, 1000, f);
  fflush(f);
  fputs(s500, f);
  fflush(f);
  fprintf(f, "%s", s300);
  fflush(f);
  fclose(f);

  printf("%s\n", s400);
  fflush(stdout);

  char* copy = strdup(s2000);
  memcpy(dst, src, sizeof dst);

  char* a = malloc(1000);
  char* wall = malloc(1000);
  size_t usable = malloc_usable_size(a);
  size_t expected = usable < 100000 ? usable : 100000;
  int moved = 0;
  if (do_realloc) {
    char* b = realloc(a, 100000);
    moved = b != a;
    a = b;
  }
  say("libc_at_least=%d direct=%d moved=%d expected_realloc_copied=%zu\n",
      1000 + 500 + 300 + 400 + 2001, (int)sizeof dst, moved, expected);
  free(a), free(wall), free(copy);
  return 0;
}
