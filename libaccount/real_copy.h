/// glibc's copy functions, found once with dlsym(RTLD_NEXT) and called directly.
/// Until then each entry of g_real_copy is a stand-in that resolves them first.
#pragma once

#include <stddef.h>
#include <wchar.h>

namespace account {

struct RealCopy {
  void* (*memcpy)(void*, const void*, size_t);
  void* (*memmove)(void*, const void*, size_t);
  void* (*mempcpy)(void*, const void*, size_t);
  wchar_t* (*wmemcpy)(wchar_t*, const wchar_t*, size_t);
  wchar_t* (*wmemmove)(wchar_t*, const wchar_t*, size_t);
};

extern RealCopy g_real_copy;
extern int g_real_copy_ready;

/// Resolves g_real_copy; returns false while resolution is under way (a
/// re-entrant call from dlsym itself), in which case callers copy by hand.
bool resolve_real_copy();

inline bool real_copy_ready() {
  return __builtin_expect(__atomic_load_n(&g_real_copy_ready, __ATOMIC_ACQUIRE), 1) ||
         resolve_real_copy();
}

/// Overlap-safe byte copy for the bootstrap window, and for the shim's own short
/// copies at start and end (never counted, and no page of libc's copy routines
/// touched: raw_syscall.h says why); never turned into a memmove call (the shim
/// is built with -fno-tree-loop-distribute-patterns).
void* bootstrap_move(void* dst, const void* src, size_t n);

/// A copy the shim makes for itself: never counted.
inline void* uncounted_copy(void* dst, const void* src, size_t n) {
  return real_copy_ready() ? g_real_copy.memmove(dst, src, n) : bootstrap_move(dst, src, n);
}

}  // namespace account
