// The memcpy family: count bytes and calls, then forward to glibc's own
// (IFUNC-selected) implementation. Only calls that reach the PLT are seen:
// copies the compiler inlines and copies inside libc itself are not.
//
// Each function has a fast path with no stack frame (an owned slot: count, then
// a tail call through g_real_copy, whose entries resolve glibc's functions on
// first use) and a cold path that takes the whole call in every other case
// (first call on a thread, the shared slot).
#include <stddef.h>
#include <wchar.h>

#include "counters.h"
#include "real_copy.h"

using namespace account;

extern "C" void __chk_fail(void) __attribute__((noreturn));

namespace {

inline bool count_copy_fast(uint64_t bytes) {
  Slot* s = tls_counting.slot;
  if (ACCOUNT_UNLIKELY((detour_bits(s) & kDetourAll) != 0)) return false;
  add_owned(&s->copied_calls, uint64_t{1});
  add_owned(&s->copied_bytes, bytes);
  return true;
}

template <typename F>
inline F real(F* slot) {
  return __atomic_load_n(slot, __ATOMIC_RELAXED);
}

#define ACCOUNT_COLD __attribute__((noinline, cold))

ACCOUNT_COLD void* memcpy_rare(void* dst, const void* src, size_t n) {
  count_copy(n);
  if (!real_copy_ready()) return bootstrap_move(dst, src, n);
  return g_real_copy.memcpy(dst, src, n);
}

ACCOUNT_COLD void* memmove_rare(void* dst, const void* src, size_t n) {
  count_copy(n);
  if (!real_copy_ready()) return bootstrap_move(dst, src, n);
  return g_real_copy.memmove(dst, src, n);
}

ACCOUNT_COLD void* mempcpy_rare(void* dst, const void* src, size_t n) {
  count_copy(n);
  if (!real_copy_ready()) return static_cast<char*>(bootstrap_move(dst, src, n)) + n;
  return g_real_copy.mempcpy(dst, src, n);
}

ACCOUNT_COLD wchar_t* wmemcpy_rare(wchar_t* dst, const wchar_t* src, size_t n) {
  count_copy(n * sizeof(wchar_t));
  if (!real_copy_ready())
    return static_cast<wchar_t*>(bootstrap_move(dst, src, n * sizeof(wchar_t)));
  return g_real_copy.wmemcpy(dst, src, n);
}

ACCOUNT_COLD wchar_t* wmemmove_rare(wchar_t* dst, const wchar_t* src, size_t n) {
  count_copy(n * sizeof(wchar_t));
  if (!real_copy_ready())
    return static_cast<wchar_t*>(bootstrap_move(dst, src, n * sizeof(wchar_t)));
  return g_real_copy.wmemmove(dst, src, n);
}

inline void* counted_memcpy(void* dst, const void* src, size_t n) {
  auto fn = real(&g_real_copy.memcpy);
  if (ACCOUNT_LIKELY(count_copy_fast(n))) return fn(dst, src, n);
  return memcpy_rare(dst, src, n);
}

inline void* counted_memmove(void* dst, const void* src, size_t n) {
  auto fn = real(&g_real_copy.memmove);
  if (ACCOUNT_LIKELY(count_copy_fast(n))) return fn(dst, src, n);
  return memmove_rare(dst, src, n);
}

inline void* counted_mempcpy(void* dst, const void* src, size_t n) {
  auto fn = real(&g_real_copy.mempcpy);
  if (ACCOUNT_LIKELY(count_copy_fast(n))) return fn(dst, src, n);
  return mempcpy_rare(dst, src, n);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void* memcpy(void* dst, const void* src, size_t n) {
  return counted_memcpy(dst, src, n);
}

__attribute__((visibility("default"))) void* memmove(void* dst, const void* src, size_t n) {
  return counted_memmove(dst, src, n);
}

__attribute__((visibility("default"))) void* mempcpy(void* dst, const void* src, size_t n) {
  return counted_mempcpy(dst, src, n);
}

__attribute__((visibility("default"))) void bcopy(const void* src, void* dst, size_t n) {
  auto fn = real(&g_real_copy.memmove);
  if (ACCOUNT_LIKELY(count_copy_fast(n))) {
    fn(dst, src, n);
    return;
  }
  memmove_rare(dst, src, n);
}

// The _chk variants do what glibc's do, the check and then the copy, with no
// dlsym of their own at start and no page of glibc's _chk code touched.
__attribute__((visibility("default"))) void* __memcpy_chk(void* dst, const void* src, size_t n,
                                                          size_t dstlen) {
  if (ACCOUNT_UNLIKELY(dstlen < n)) __chk_fail();
  return counted_memcpy(dst, src, n);
}

__attribute__((visibility("default"))) void* __memmove_chk(void* dst, const void* src, size_t n,
                                                           size_t dstlen) {
  if (ACCOUNT_UNLIKELY(dstlen < n)) __chk_fail();
  return counted_memmove(dst, src, n);
}

__attribute__((visibility("default"))) void* __mempcpy_chk(void* dst, const void* src, size_t n,
                                                           size_t dstlen) {
  if (ACCOUNT_UNLIKELY(dstlen < n)) __chk_fail();
  return counted_mempcpy(dst, src, n);
}

__attribute__((visibility("default"))) wchar_t* wmemcpy(wchar_t* dst, const wchar_t* src,
                                                        size_t n) {
  auto fn = real(&g_real_copy.wmemcpy);
  if (ACCOUNT_LIKELY(count_copy_fast(n * sizeof(wchar_t)))) return fn(dst, src, n);
  return wmemcpy_rare(dst, src, n);
}

__attribute__((visibility("default"))) wchar_t* wmemmove(wchar_t* dst, const wchar_t* src,
                                                         size_t n) {
  auto fn = real(&g_real_copy.wmemmove);
  if (ACCOUNT_LIKELY(count_copy_fast(n * sizeof(wchar_t)))) return fn(dst, src, n);
  return wmemmove_rare(dst, src, n);
}

}  // extern "C"
