/// The allocator the program would use without the shim: the malloc family
/// found next in the lookup order (dlsym RTLD_NEXT), which is glibc's unless a
/// library such as jemalloc or tcmalloc is preloaded after the shim or linked
/// into the program. Forwarding there, and not to glibc's __libc_malloc, keeps
/// such a program on its own allocator: mixing two allocators' blocks crashes.
///
/// While the functions are being found, dlsym may itself allocate: those calls
/// are served from a static bootstrap arena, are not counted, and their blocks
/// are never freed.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace account {

struct NextAllocator {
  void* (*malloc)(size_t);
  void (*free)(void*);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void* (*memalign)(size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);
  size_t (*malloc_usable_size)(void*);
  /// malloc, free, calloc, realloc and memalign are glibc's own: the interposers
  /// may call __libc_* directly and read usable sizes from glibc's chunk header.
  bool is_glibc;
};

extern NextAllocator g_next;

/// How the program's malloc was found at start-up (Region::malloc_found).
enum MallocFound : uint32_t {
  kMallocIsTheShims = 0,
  /// Another allocator comes first in the lookup order (preloaded before the
  /// shim, or defined by the executable): the program's allocations never
  /// reach the shim.
  kMallocIsAnothers = 1,
  /// dlsym named a non-PIE executable's canonical PLT entry (an undefined
  /// symbol with a value: the executable takes malloc's address, as Debian's
  /// python3.11 does), which jumps to the definition, whichever it is.
  kMallocBehindPlt = 2,
  /// The lookup names the shim's, but the process runs on valgrind, whose
  /// memcheck, massif, dhat, helgrind and drd divert every call of a malloc
  /// (the shim's too) to their own allocator, and whose none, cachegrind and
  /// callgrind do not: the shim's if any call reached it.
  kMallocUnderValgrind = 3,
};
extern uint32_t g_malloc_found;

/// Whether the malloc found is the shim's only if some call reached it
/// (kMallocBehindPlt, kMallocUnderValgrind): then the figures of a process
/// whose calls did are the shim's, and the lookup (every caller's) is settled.
inline bool malloc_known_by_calls(uint32_t found) {
  return found == kMallocBehindPlt || found == kMallocUnderValgrind;
}

/// The one rule for whether the program's malloc was the shim's: found so, or,
/// where only calls tell, if any call reached the shim. Where it was not, the
/// record says so ("malloc_interposed": false) rather than show a silent zero.
inline bool malloc_was_the_shims(uint32_t found, uint64_t malloc_calls) {
  return found == kMallocIsTheShims || (malloc_known_by_calls(found) && malloc_calls > 0);
}

/// Finds the next allocator on first use. False only for a re-entrant call
/// while it is being found (from dlsym): use the bootstrap arena then.
bool next_allocator_ready();

/// The bootstrap arena (16 KiB): 16-byte aligned (or `alignment`, a power of two up to
/// 4096), zero-filled; NULL when exhausted.
void* bootstrap_alloc(size_t size, size_t alignment);
bool is_bootstrap_block(const void* p);
/// The size a bootstrap block was allocated with.
size_t bootstrap_block_size(const void* p);
/// Whether any block came from the arena: glibc's free must then never see
/// one, so the malloc family stays on its out-of-line path (which checks).
bool bootstrap_arena_used();

}  // namespace account
