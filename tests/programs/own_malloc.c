// A program whose executable defines the malloc family itself (a bump
// allocator over a static arena), as programs that link an allocator in
// statically do: its malloc, not the shim's, is the one every call binds to,
// libc's own calls included. The shim still counts its copies: ten memcpy
// calls of 100000 bytes. It allocates 10 blocks of 1 MiB that the shim never
// sees (record key malloc_interposed false: the malloc figures are unknown).
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "say.h"

static _Alignas(64) unsigned char arena[32 << 20];
static size_t used;

static void* take(size_t alignment, size_t size) {
  size_t at = (used + alignment - 1) & ~(alignment - 1);
  if (size > sizeof arena || at > sizeof arena - size - 16) return NULL;
  *(size_t*)(arena + at) = size;  // the size, 16 bytes before the block
  used = at + 16 + size;
  return arena + at + 16;
}

void* malloc(size_t size) {
  void* p = take(16, size);
  if (!p) errno = ENOMEM;
  return p;
}
void free(void* p) {
  (void)p;  // a bump allocator: never reused
}
void* calloc(size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  return malloc(n * size);  // the static arena is zero and never reused
}
void* realloc(void* p, size_t size) {
  void* q = malloc(size);
  if (p && q) {
    size_t old = ((size_t*)p)[-2];
    for (size_t i = 0; i < (old < size ? old : size); ++i) ((char*)q)[i] = ((char*)p)[i];
  }
  return q;
}
void* memalign(size_t alignment, size_t size) {
  return take(alignment < 16 ? 16 : alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  return memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  void* p = memalign(alignment, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
size_t malloc_usable_size(void* p) {
  return p ? ((size_t*)p)[-2] : 0;
}

int main(void) {
  static char src[100000];
  char* blocks[10];
  for (int i = 0; i < 10; ++i) {
    blocks[i] = malloc(1 << 20);
    if (!blocks[i]) return 2;
    memcpy(blocks[i], src, sizeof src);
  }
  say("own malloc: %zu bytes used\n", used);
  return blocks[9][0];
}
