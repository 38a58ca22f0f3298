// The malloc family: count, then forward to glibc's own entry points.
//
// glibc exports __libc_malloc and friends, so no dlsym is needed and nothing
// recurses during start-up. Live heap is tracked from the usable size of each
// block (usable_size.h), which lets free() account for a block without a table.
// malloc and free have a fast path with no stack frame; every rare case (first
// call on a thread, the shared slot, NULL, a large request to backtrace) takes
// the whole call out of line.
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>

#include "backtrace.h"
#include "counters.h"
#include "usable_size.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
void* __libc_memalign(size_t, size_t);
void* __libc_valloc(size_t);
void* __libc_pvalloc(size_t);
}

namespace account {
namespace {

inline int64_t usable(void* p) {
  return p ? usable_size(p) : 0;
}

inline void count_alloc(uint64_t requested, void* result) {
  count_malloc_call(requested, usable(result));
  maybe_capture(requested);
}

inline bool is_power_of_two(size_t x) {
  return x != 0 && (x & (x - 1)) == 0;
}

// glibc's own aligned_alloc: which alignments it accepts changed between
// releases (2.36 takes any, as memalign does; 2.38 wants a power of two).
using AlignedAllocFn = void* (*)(size_t, size_t);
AlignedAllocFn g_real_aligned_alloc = nullptr;

__attribute__((constructor(101))) void resolve_aligned_alloc() {
  g_real_aligned_alloc = reinterpret_cast<AlignedAllocFn>(dlsym(RTLD_NEXT, "aligned_alloc"));
  check_usable_from_header();
  update_heap_detour();
}

__attribute__((noinline, cold)) void* malloc_rare(size_t size) {
  void* p = __libc_malloc(size);
  count_alloc(size, p);
  return p;
}

__attribute__((noinline, cold)) void free_rare(void* ptr) {
  count_free_call(usable(ptr));
  __libc_free(ptr);
}

__attribute__((noinline, cold)) void free_after_sync(Slot* s, void* ptr) {
  heap_sync(s);
  __libc_free(ptr);
}

}  // namespace
}  // namespace account

using namespace account;

extern "C" {

__attribute__((visibility("default"))) void* malloc(size_t size) {
  Slot* s = tls_slot;
  if (ACCOUNT_UNLIKELY(load_relaxed(&s->detour) != 0)) return malloc_rare(size);
  // Counted before the call so that nothing but the slot lives across it; a
  // failed call counts too.
  add_owned(&s->malloc_calls, uint64_t{1});
  add_owned(&s->malloc_bytes, uint64_t{size});
  void* p = __libc_malloc(size);
  if (ACCOUNT_LIKELY(p != nullptr)) heap_grow(s, usable_size_from_header(p));
  return p;
}

__attribute__((visibility("default"))) void free(void* ptr) {
  Slot* s = tls_slot;
  if (ACCOUNT_UNLIKELY(load_relaxed(&s->detour) != 0 || ptr == nullptr)) return free_rare(ptr);
  add_owned(&s->free_calls, uint64_t{1});
  int64_t bytes = usable_size_from_header(ptr);
  add_owned(&s->heap_grow_room, bytes);
  if (ACCOUNT_UNLIKELY(sub_owned_goes_negative(&s->heap_shrink_room, bytes)))
    return free_after_sync(s, ptr);
  __libc_free(ptr);
}

__attribute__((visibility("default"))) void* calloc(size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) bytes = 0;  // glibc fails it: nothing requested
  void* p = __libc_calloc(n, size);
  count_alloc(bytes, p);
  return p;
}

__attribute__((visibility("default"))) void* realloc(void* ptr, size_t size) {
  int64_t old_usable = usable(ptr);
  void* p = __libc_realloc(ptr, size);
  // A NULL result: realloc(ptr, 0) freed ptr; any other failure left it alone.
  int64_t new_usable = p ? usable(p) : (size == 0 ? 0 : old_usable);
  uint64_t moved = 0;
  if (ptr && p && p != ptr) moved = static_cast<uint64_t>(old_usable) < size ? old_usable : size;
  count_realloc_call(size, old_usable, new_usable, moved);
  maybe_capture(size);
  return p;
}

__attribute__((visibility("default"))) void* reallocarray(void* ptr, size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    count_malloc_call(0, 0);  // glibc fails it: nothing requested
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(ptr, bytes);
}

__attribute__((visibility("default"))) void* memalign(size_t alignment, size_t size) {
  void* p = __libc_memalign(alignment, size);
  count_alloc(size, p);
  return p;
}

__attribute__((visibility("default"))) void* aligned_alloc(size_t alignment, size_t size) {
  AlignedAllocFn real = g_real_aligned_alloc;
  void* p = real ? real(alignment, size) : __libc_memalign(alignment, size);
  count_alloc(size, p);
  return p;
}

__attribute__((visibility("default"))) int posix_memalign(void** out, size_t alignment,
                                                          size_t size) {
  if (alignment % sizeof(void*) != 0 || !is_power_of_two(alignment / sizeof(void*))) {
    count_alloc(size, nullptr);
    return EINVAL;
  }
  int saved = errno;
  void* p = __libc_memalign(alignment, size);
  count_alloc(size, p);
  if (p == nullptr) {
    errno = saved;
    return ENOMEM;
  }
  *out = p;
  return 0;
}

__attribute__((visibility("default"))) void* valloc(size_t size) {
  void* p = __libc_valloc(size);
  count_alloc(size, p);
  return p;
}

__attribute__((visibility("default"))) void* pvalloc(size_t size) {
  void* p = __libc_pvalloc(size);
  count_alloc(size, p);
  return p;
}

}  // extern "C"
