// The floor: an LD_PRELOAD library that interposes what account's shim
// interposes on the benchmarks' paths (malloc, free, calloc, realloc, memcpy,
// memmove, mempcpy) and only forwards to glibc, built like the shim (-fno-plt).
// Whatever it costs, any interposer that forwards to glibc pays; the shim's
// counting is what it costs beyond this. Run as a variant by overhead.sh and
// shim_bench.sh.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);

typedef void* (*CopyFn)(void*, const void*, size_t);

// A byte loop for copies made before the constructor ran (by ld.so or dlsym).
static void* early_copy(void* dst, const void* src, size_t n) {
  volatile unsigned char* d = dst;
  const unsigned char* s = src;
  if (d < s || d >= s + n)
    for (size_t i = 0; i < n; ++i) d[i] = s[i];
  else
    for (size_t i = n; i > 0; --i) d[i - 1] = s[i - 1];
  return dst;
}

static void* early_mempcpy(void* dst, const void* src, size_t n) {
  return (char*)early_copy(dst, src, n) + n;
}

// As in the shim, no NULL test on the way: stand-ins until resolved.
static CopyFn real_memcpy = early_copy, real_memmove = early_copy, real_mempcpy = early_mempcpy;

__attribute__((constructor)) static void resolve(void) {
  CopyFn c = (CopyFn)dlsym(RTLD_NEXT, "memcpy");
  CopyFn m = (CopyFn)dlsym(RTLD_NEXT, "memmove");
  CopyFn p = (CopyFn)dlsym(RTLD_NEXT, "mempcpy");
  if (c && m && p) real_memcpy = c, real_memmove = m, real_mempcpy = p;
}

void* malloc(size_t n) {
  return __libc_malloc(n);
}
void free(void* p) {
  __libc_free(p);
}
void* calloc(size_t n, size_t size) {
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  return __libc_realloc(p, n);
}

void* memcpy(void* d, const void* s, size_t n) {
  return real_memcpy(d, s, n);
}
void* memmove(void* d, const void* s, size_t n) {
  return real_memmove(d, s, n);
}
void* mempcpy(void* d, const void* s, size_t n) {
  return real_mempcpy(d, s, n);
}
