// The malloc family: count, then forward to the allocator the program would
// use without the shim (next_allocator.h): glibc's, or one such as jemalloc
// that comes after the shim in the lookup order.
//
// For glibc (nearly always), malloc, calloc, realloc and free have a fast path that tests one
// word of the thread's slot (Slot::detour), calls glibc's __libc_* entry points
// directly and reads usable sizes from the chunk header (usable_size.h), which
// lets free() account for a block without a table. Every other case (first
// call on a thread, the shared slot, no usable size from the header,
// backtraces on, another allocator, NULL) takes the whole call out of line.
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "backtrace.h"
#include "counters.h"
#include "early_blocks.h"
#include "find_next.h"
#include "libc_copies.h"
#include "next_allocator.h"
#include "real_copy.h"
#include "under_valgrind.h"
#include "usable_size.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
}

namespace account {
namespace {

// Sizes come from the allocator's malloc_usable_size for good: the check of
// glibc's chunk header has run (this runs it if no call has) and said no.
__attribute__((noinline, cold)) bool sizes_asked_of_the_allocator() {
  if (check_usable_from_header_once()) update_heap_detour();
  return usable_check_done() && !g_usable_from_header;
}

// The usable size of a block just made with `requested` bytes (NULL: 0).
inline int64_t usable_of_new(void* p, uint64_t requested) {
  if (!p) return 0;
  if (ACCOUNT_UNLIKELY(!g_usable_from_header && !g_libraries_started) &&
      sizes_asked_of_the_allocator() && note_early_block(p, requested))
    return static_cast<int64_t>(requested);
  return usable_size(p);
}

// The usable size a live block (or NULL: 0) was counted with; *early says
// whether it was an early block.
inline int64_t usable_of_old(void* p, bool* early = nullptr) {
  if (!p) return 0;
  int64_t counted;
  if (ACCOUNT_UNLIKELY(!g_usable_from_header) && take_early_block(p, &counted)) {
    if (early) *early = true;
    return counted;
  }
  return usable_size(p);
}

inline void count_alloc(uint64_t requested, void* result) {
  count_malloc_call(requested, result, usable_of_new(result, requested));
  maybe_capture(requested, result);
}

}  // namespace
}  // namespace account

// This library's own malloc (the name `malloc` means the first definition in the
// lookup order, which may be another library's).
extern "C" void* account_own_malloc(size_t) noexcept
    __attribute__((alias("malloc"), visibility("hidden")));

namespace account {
namespace {

// How the program's malloc is found: dlsym names the first definition in the
// lookup order, or a non-PIE executable's canonical PLT entry for it. Where it
// names the shim's, a definition at a hidden version before the shim
// (libc_malloc_debug.so's, which an unversioned lookup skips) is the program's.
uint32_t find_program_malloc() {
  void* own = reinterpret_cast<void*>(&account_own_malloc);
  void* found = dlsym(RTLD_DEFAULT, "malloc");
  if (found == own) {
    if (versioned_definition_precedes("malloc", kGlibcBaseVersion, own)) return kMallocIsAnothers;
    return under_valgrind() ? kMallocUnderValgrind : kMallocIsTheShims;
  }
  Dl_info info;
  void* entry = nullptr;  // the ElfW(Sym) dladdr1 matched
  if (found && dladdr1(found, &info, &entry, RTLD_DL_SYMENT) && entry &&
      static_cast<const ElfW(Sym)*>(entry)->st_shndx == SHN_UNDEF)
    return kMallocBehindPlt;
  return kMallocIsAnothers;
}

__attribute__((constructor(101))) void start_allocator() {
  g_malloc_found = find_program_malloc();
  if (g_region) store_relaxed(&g_region->malloc_found, g_malloc_found);  // mapped first
  next_allocator_ready();
  settle_early_blocks();
}

// n * size, or SIZE_MAX (which no allocator can serve) when it overflows.
size_t checked_product(size_t n, size_t size) {
  size_t bytes;
  return __builtin_mul_overflow(n, size, &bytes) ? SIZE_MAX : bytes;
}

// While the next allocator is being found (next_allocator_ready() false), the
// calls dlsym makes are served from the bootstrap arena, uncounted.
__attribute__((noinline, cold)) void* malloc_rare(size_t size) {
  if (!next_allocator_ready()) return bootstrap_alloc(size, 16);
  if (ACCOUNT_UNLIKELY(check_usable_from_header_once())) update_heap_detour();
  void* p = g_next.malloc(size);
  count_alloc(size, p);
  return p;
}

// What calloc asked for: n * size, or nothing when that overflows (the call fails).
size_t calloc_request(size_t n, size_t size) {
  size_t bytes;
  return __builtin_mul_overflow(n, size, &bytes) ? 0 : bytes;
}

__attribute__((noinline, cold)) void* calloc_rare(size_t n, size_t size) {
  if (!next_allocator_ready()) return bootstrap_alloc(checked_product(n, size), 16);
  if (ACCOUNT_UNLIKELY(check_usable_from_header_once())) update_heap_detour();
  void* p = g_next.calloc(n, size);
  count_alloc(calloc_request(n, size), p);
  return p;
}

__attribute__((noinline, cold)) void free_rare(void* ptr) {
  if (is_bootstrap_block(ptr)) return;  // never reused
  maybe_forget(ptr);                    // before the allocator may hand the address out again
  count_free_call(ptr, usable_of_old(ptr));
  g_next.free(ptr);
}

// A failed call of malloc's or calloc's fast path: a call that made no block,
// and asked for nothing (count_malloc_call's rule): the bytes the fast path
// counted before the call (the thread's newest request) are taken back. Read
// from the thread's state, not kept across the call (a saved register on
// every call): a signal handler that allocates in the few instructions
// between the store of the request and this read would have its own request
// taken back instead.
__attribute__((noinline, cold)) void* failed_allocation(Slot* s) {
  add_owned(&s->block_adjust, int64_t{1});
  add_owned(&s->malloc_bytes, uint64_t{0} - tls_counting.last_request);
  return nullptr;
}

__attribute__((noinline, cold)) void free_after_sync(Slot* s, void* ptr) {
  heap_sync(s);
  __libc_free(ptr);
}

// free's fast path for a chunk glibc mmapped: its usable size has the larger header.
__attribute__((noinline, cold)) void free_mmapped(Slot* s, void* ptr) {
  heap_shrink(s, usable_size_from_header(ptr));
  __libc_free(ptr);
}

__attribute__((noinline, cold)) void* allocated_after_sync(Slot* s, void* p) {
  heap_sync(s);
  return p;
}

// The end of malloc's and calloc's fast paths: `p` came from glibc, the slot
// is owned. A tail call, so the fast path needs no stack frame for `p`.
inline void* grow_by_block(Slot* s, void* p) {
  uint64_t size_word = chunk_size_word(p);
  int64_t usable = ACCOUNT_UNLIKELY(chunk_mmapped(size_word)) ? usable_size_from_header(p)
                                                              : heap_chunk_usable(size_word);
  add_owned(&s->heap_shrink_room, usable);
  if (ACCOUNT_UNLIKELY(sub_owned_goes_negative(&s->heap_grow_room, usable)))
    return allocated_after_sync(s, p);
  return p;
}

// realloc of a bootstrap block: a new block and a copy; the old one stays.
void* realloc_bootstrap_block(void* ptr, size_t size) {
  void* p = next_allocator_ready() ? g_next.malloc(size) : bootstrap_alloc(size, 16);
  if (p) {
    size_t old = bootstrap_block_size(ptr);
    uncounted_copy(p, ptr, old < size ? old : size);
  }
  return p;
}

// The usable size after realloc(ptr, size) returned NULL: realloc(ptr, 0)
// freed ptr; any other failure left it alone.
inline int64_t realloc_failed_usable(size_t size, int64_t old_usable) {
  return size == 0 ? 0 : old_usable;
}

// Bytes realloc copied: its block moved, with what fit of the old one.
inline uint64_t realloc_moved(void* ptr, void* p, size_t size, int64_t old_usable) {
  if (!ptr || !p || p == ptr) return 0;
  return static_cast<uint64_t>(old_usable) < size ? uint64_t(old_usable) : size;
}

__attribute__((noinline, cold)) void* realloc_rare(void* ptr, size_t size) {
  if (is_bootstrap_block(ptr)) return realloc_bootstrap_block(ptr, size);
  if (!next_allocator_ready()) return ptr ? nullptr : bootstrap_alloc(size, 16);
  bool early = false;
  int64_t old_usable = usable_of_old(ptr, &early);
  TakenBlock taken = g_live_blocks_on && ptr ? take_captured_block(ptr) : TakenBlock{};
  void* p;
  {
    // glibc's realloc moves a block with memcpy through libc's own slot: that
    // copy is realloc_copied_bytes below, not a libc copy too.
    InsideAllocator inside;
    p = g_next.realloc(ptr, size);
  }
  int64_t new_usable = p ? usable_of_new(p, size) : realloc_failed_usable(size, old_usable);
  if (ACCOUNT_UNLIKELY(early) && !p && size != 0) note_early_block(ptr, uint64_t(old_usable));
  settle_realloc(taken, ptr, p, size);  // reads the thread's newest block: before the count
  count_realloc_call(ptr, p, size, old_usable, new_usable, realloc_moved(ptr, p, size, old_usable));
  maybe_capture(size, p);
  return p;
}

// malloc's call, after its counting: the request is the thread's newest, the
// slot is read again after the call (cheaper than keeping it across).
inline void* malloc_counted(size_t size) {
  tls_counting.last_request = size;
  void* p = __libc_malloc(size);
  tls_counting.last_block = p;
  Slot* s = tls_counting.slot;
  if (ACCOUNT_UNLIKELY(p == nullptr)) return failed_allocation(s);
  return grow_by_block(s, p);
}

// A new largest request: out of line, so the fast path keeps `size` in its
// argument register. The largest once a block is made (count_malloc_call's rule).
__attribute__((noinline, cold)) void* malloc_new_largest(Slot* s, size_t size) {
  void* p = malloc_counted(size);
  if (p) raise_largest_request(s, int64_t(size));
  return p;
}

// As malloc_counted, for calloc.
inline void* calloc_counted(size_t n, size_t size, size_t bytes) {
  tls_counting.last_request = bytes;
  void* p = __libc_calloc(n, size);
  tls_counting.last_block = p;
  Slot* s = tls_counting.slot;
  if (ACCOUNT_UNLIKELY(p == nullptr)) return failed_allocation(s);
  return grow_by_block(s, p);
}

__attribute__((noinline, cold)) void* calloc_new_largest(Slot* s, size_t n, size_t size,
                                                         size_t bytes) {
  void* p = calloc_counted(n, size, bytes);
  if (p) raise_largest_request(s, int64_t(bytes));
  return p;
}

}  // namespace
}  // namespace account

using namespace account;

extern "C" {

__attribute__((visibility("default"))) void* malloc(size_t size) {
  Slot* s = tls_counting.slot;
  if (ACCOUNT_UNLIKELY(detour_bits(s) != 0)) return malloc_rare(size);
  // Counted before the call so that nothing but the slot lives across it; a
  // failed call takes its bytes back (failed_allocation).
  add_owned(&s->malloc_calls, uint64_t{1});
  add_owned(&s->malloc_bytes, uint64_t{size});
  if (ACCOUNT_UNLIKELY(int64_t(size) > s->largest_request)) return malloc_new_largest(s, size);
  return malloc_counted(size);
}

__attribute__((visibility("default"))) void free(void* ptr) {
  Slot* s = tls_counting.slot;
  if (ACCOUNT_UNLIKELY(detour_bits(s) != 0 || ptr == nullptr)) return free_rare(ptr);
  add_owned(&s->free_calls, uint64_t{1});
  note_temporary(s, ptr);
  uint64_t size_word = chunk_size_word(ptr);
  if (ACCOUNT_UNLIKELY(chunk_mmapped(size_word))) return free_mmapped(s, ptr);
  if (ACCOUNT_UNLIKELY(heap_shrink_leaves_sync_due(s, heap_chunk_usable(size_word))))
    return free_after_sync(s, ptr);
  __libc_free(ptr);
}

// As malloc's fast path, with glibc's calloc.
__attribute__((visibility("default"))) void* calloc(size_t n, size_t size) {
  Slot* s = tls_counting.slot;
  if (ACCOUNT_UNLIKELY(detour_bits(s) != 0)) return calloc_rare(n, size);
  size_t bytes = calloc_request(n, size);
  add_owned(&s->malloc_calls, uint64_t{1});
  add_owned(&s->malloc_bytes, uint64_t{bytes});
  if (ACCOUNT_UNLIKELY(int64_t(bytes) > s->largest_request))
    return calloc_new_largest(s, n, size, bytes);
  return calloc_counted(n, size, bytes);
}

__attribute__((visibility("default"))) void* realloc(void* ptr, size_t size) {
  Slot* s = tls_counting.slot;
  if (ACCOUNT_UNLIKELY(detour_bits(s) != 0 || ptr == nullptr || is_bootstrap_block(ptr)))
    return realloc_rare(ptr, size);
  // As malloc's fast path: glibc's realloc, usable sizes from the chunk headers.
  int64_t old_usable = usable_size_from_header(ptr);
  void* p;
  {
    InsideAllocator inside;  // its move is realloc_copied_bytes, not a libc copy
    p = __libc_realloc(ptr, size);
  }
  int64_t new_usable = p ? usable_size_from_header(p) : realloc_failed_usable(size, old_usable);
  note_realloc_block(s, ptr, p, size);
  count_realloc_owned(s, p ? size : 0, old_usable, new_usable,
                      realloc_moved(ptr, p, size, old_usable), realloc_no_new_block(ptr, p, size));
  return p;
}

__attribute__((visibility("default"))) void* reallocarray(void* ptr, size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes)) {
    count_malloc_call(0, nullptr, 0);  // it fails: nothing requested
    errno = ENOMEM;
    return nullptr;
  }
  return realloc(ptr, bytes);
}

__attribute__((visibility("default"))) void* memalign(size_t alignment, size_t size) {
  if (!next_allocator_ready()) return bootstrap_alloc(size, alignment);
  void* p = g_next.memalign(alignment, size);
  count_alloc(size, p);
  return p;
}

__attribute__((visibility("default"))) void* aligned_alloc(size_t alignment, size_t size) {
  if (!next_allocator_ready()) return bootstrap_alloc(size, alignment);
  void* p = g_next.aligned_alloc(alignment, size);
  count_alloc(size, p);
  return p;
}

__attribute__((visibility("default"))) int posix_memalign(void** out, size_t alignment,
                                                          size_t size) {
  if (!next_allocator_ready()) {
    void* p = bootstrap_alloc(size, alignment);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
  }
  void* p = nullptr;
  int result = g_next.posix_memalign(&p, alignment, size);  // errno as it leaves it
  count_alloc(size, result == 0 ? p : nullptr);
  if (result == 0) *out = p;
  return result;
}

__attribute__((visibility("default"))) void* valloc(size_t size) {
  if (!next_allocator_ready()) return bootstrap_alloc(size, 4096);
  void* p = g_next.valloc(size);
  count_alloc(size, p);
  return p;
}

__attribute__((visibility("default"))) void* pvalloc(size_t size) {
  if (!next_allocator_ready()) return bootstrap_alloc((size + 4095) & ~size_t{4095}, 4096);
  void* p = g_next.pvalloc(size);
  count_alloc(size, p);
  return p;
}

}  // extern "C"
