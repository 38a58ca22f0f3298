#include "usable_size.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace account {

bool g_usable_from_header = false;

void check_usable_from_header() {
  g_usable_from_header = false;
  if (!next_allocator_ready() || !g_next.is_glibc) return;
  // Small (tcache/fastbin) and medium blocks, plain and aligned: they show the
  // allocator is glibc's with its chunk layout. No mmapped block is tried
  // (their header is 16 bytes in every glibc): making one would raise the
  // process's VmPeak by its size, which the record reports, and freeing one
  // below 32 MiB would raise glibc's dynamic mmap threshold.
  const size_t sizes[] = {1, 24, 100, 1000, 5000};
  bool agree = true;
  for (size_t size : sizes) {
    for (int aligned = 0; aligned < 2 && agree; ++aligned) {
      void* p = aligned ? __libc_memalign(256, size) : __libc_malloc(size);
      if (!p) continue;
      g_usable_from_header = true;
      int64_t from_header = usable_size(p);
      g_usable_from_header = false;
      agree = from_header == static_cast<int64_t>(g_next.malloc_usable_size(p));
      __libc_free(p);
    }
  }
  g_usable_from_header = agree;
}

}  // namespace account
