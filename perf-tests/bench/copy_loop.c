// memcpy/memmove-heavy workload for perf-tests/overhead.sh. Built with
// -fno-builtin so every copy is a call through the PLT (an inlined copy is
// invisible to every interposing tool).
//
// usage: copy_loop CALLS [MAX_BYTES]
// Alternates memcpy and memmove of pseudo-random sizes (1..MAX_BYTES, default
// 8192) within and between two 64 KiB buffers; prints the exact calls and bytes
// it asked for. With the default, 30 M calls take 1-5 s, as issue 7's workload;
// MAX_BYTES=256 is nearly nothing but the calls, the worst case for an
// interposer.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kBuf = 64 * 1024, kMaxBytes = 16 * 1024 };

static char a[kBuf], b[kBuf];

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CALLS [MAX_BYTES]\n", argv[0]);
    return 2;
  }
  long calls = atol(argv[1]);
  uint32_t max_bytes = argc > 2 ? (uint32_t)atol(argv[2]) : 8192;
  if (max_bytes < 1 || max_bytes > kMaxBytes) {
    fprintf(stderr, "copy_loop: MAX_BYTES must be 1..%d\n", kMaxBytes);
    return 2;
  }
  for (int i = 0; i < kBuf; ++i) a[i] = (char)i;
  uint32_t x = 777;
  uint64_t bytes = 0;
  for (long i = 0; i < calls; ++i) {
    x = x * 1664525u + 1013904223u;
    size_t n = 1 + (x >> 8) % max_bytes;
    size_t off = (x * 2654435761u) % (kBuf / 2);
    if (i & 1)
      memmove(a + off, a + off + 7, n);
    else
      memcpy(b + off, a + off, n);
    bytes += n;
  }
  printf("copy_loop calls=%ld bytes=%llu check=%d\n", calls, (unsigned long long)bytes,
         a[100] + b[200]);
  return 0;
}
