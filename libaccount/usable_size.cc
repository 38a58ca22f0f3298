#include "usable_size.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);
}

namespace account {

bool g_usable_from_header = false;

namespace {
uint32_t g_check_state = 0;  // 0 not yet, 1 running, 2 done
}  // namespace

bool check_usable_from_header_once() {
  if (ACCOUNT_LIKELY(__atomic_load_n(&g_check_state, __ATOMIC_ACQUIRE) == 2)) return false;
  uint32_t expected = 0;
  if (!__atomic_compare_exchange_n(&g_check_state, &expected, 1u, false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    return false;  // another thread (or this one, interrupted) is at it
  check_usable_from_header();
  __atomic_store_n(&g_check_state, 2u, __ATOMIC_RELEASE);
  return true;
}

bool usable_check_done() {
  return __atomic_load_n(&g_check_state, __ATOMIC_ACQUIRE) == 2;
}

void check_usable_from_header() {
  if (!next_allocator_ready() || !g_next.is_glibc) {
    g_usable_from_header = false;
    return;
  }
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
      agree = usable_size_from_header(p) == static_cast<int64_t>(g_next.malloc_usable_size(p));
      __libc_free(p);
    }
  }
  __atomic_store_n(&g_usable_from_header, agree, __ATOMIC_RELEASE);
}

}  // namespace account
