#include "next_allocator.h"

#include <errno.h>
#include <stdint.h>

#include "atomics.h"
#include "find_next.h"

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

// Never called: the rare paths resolve before they need a usable size.
size_t no_usable_size(void*) {
  return 0;
}

// Until resolved (and if dlsym ever finds nothing): glibc's own functions.
int glibc_posix_memalign(void** out, size_t alignment, size_t size) {
  void* p = __libc_memalign(alignment, size);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

void* glibc_aligned_alloc(size_t alignment, size_t size) {
  return __libc_memalign(alignment, size);
}

enum State : int { kUnresolved = 0, kResolving = 1, kResolved = 2 };
int g_state = kUnresolved;

template <typename F>
void find_bound(F* slot, const char* name, const char* version) {
  if (void* f = next_definition(name, version)) *slot = reinterpret_cast<F>(f);
}

// Written field by field before g_state says resolved; until then the rare
// paths use the arena and read none of it. When the versioned lookup of malloc
// finds what the unversioned one does (no allocator defined at a hidden
// version, such as libc_malloc_debug.so's, comes next), the family is found by
// unversioned lookups alone.
void resolve() {
  bool versions_differ = false;
  if (void* f = next_definition("malloc", kGlibcBaseVersion, &versions_differ))
    g_next.malloc = reinterpret_cast<void* (*)(size_t)>(f);
  const char* v = versions_differ ? kGlibcBaseVersion : nullptr;
  find_bound(&g_next.free, "free", v);
  find_bound(&g_next.calloc, "calloc", v);
  find_bound(&g_next.realloc, "realloc", v);
  find_bound(&g_next.memalign, "memalign", v);
  find_bound(&g_next.aligned_alloc, "aligned_alloc", v ? kGlibcAlignedAllocVersion : nullptr);
  find_bound(&g_next.posix_memalign, "posix_memalign", v);
  find_bound(&g_next.valloc, "valloc", v);
  find_bound(&g_next.pvalloc, "pvalloc", v);
  find_bound(&g_next.malloc_usable_size, "malloc_usable_size", v);
  g_next.is_glibc = g_next.malloc == &__libc_malloc && g_next.free == &__libc_free &&
                    g_next.calloc == &__libc_calloc && g_next.realloc == &__libc_realloc &&
                    g_next.memalign == &__libc_memalign;
}

constexpr size_t kArenaBytes = 16 * 1024;  // dlsym's own needs are a few hundred bytes
constexpr size_t kHeader = 16;             // the block's size, kept just below it
// Only 16-aligned: a page-aligned array would page-align all of .bss and cost
// the page ld.so already zeroes (alignment is computed on addresses below).
alignas(16) ACCOUNT_LARGE_BSS unsigned char g_arena[kArenaBytes];
size_t g_arena_used = 0;

}  // namespace

NextAllocator g_next = {__libc_malloc,
                        __libc_free,
                        __libc_calloc,
                        __libc_realloc,
                        __libc_memalign,
                        glibc_aligned_alloc,
                        glibc_posix_memalign,
                        __libc_valloc,
                        __libc_pvalloc,
                        no_usable_size,
                        true};

uint32_t g_malloc_found = kMallocIsTheShims;

bool next_allocator_ready() {
  int state = __atomic_load_n(&g_state, __ATOMIC_ACQUIRE);
  if (__builtin_expect(state == kResolved, 1)) return true;
  int expected = kUnresolved;
  if (!__atomic_compare_exchange_n(&g_state, &expected, int(kResolving), false, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE)) {
    // Another call is resolving: this one (re-entrant from dlsym, or a second
    // thread in the first microseconds) takes the arena.
    return expected == kResolved;
  }
  resolve();
  __atomic_store_n(&g_state, int(kResolved), __ATOMIC_RELEASE);
  return true;
}

void* bootstrap_alloc(size_t size, size_t alignment) {
  if (alignment < 16) alignment = 16;
  if (alignment > 4096 || (alignment & (alignment - 1)) != 0 || size > kArenaBytes) return nullptr;
  size_t used = __atomic_load_n(&g_arena_used, __ATOMIC_RELAXED);
  for (;;) {
    auto base = reinterpret_cast<uintptr_t>(g_arena);
    size_t start = ((base + used + kHeader + alignment - 1) & ~(alignment - 1)) - base;
    size_t end = start + ((size + 15) & ~size_t{15});
    if (end > kArenaBytes) return nullptr;
    if (__atomic_compare_exchange_n(&g_arena_used, &used, end, true, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED)) {
      *reinterpret_cast<size_t*>(g_arena + start - sizeof(size_t)) = size;
      return g_arena + start;
    }
  }
}

bool is_bootstrap_block(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto base = reinterpret_cast<uintptr_t>(g_arena);
  return a >= base && a < base + kArenaBytes;
}

bool bootstrap_arena_used() {
  return __atomic_load_n(&g_arena_used, __ATOMIC_ACQUIRE) != 0;
}

size_t bootstrap_block_size(const void* p) {
  return *reinterpret_cast<const size_t*>(static_cast<const unsigned char*>(p) - sizeof(size_t));
}

}  // namespace account
