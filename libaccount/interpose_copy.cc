// The memcpy family: count bytes and calls, then forward to glibc's own
// (IFUNC-selected) implementation. Only calls that reach the PLT are seen:
// copies the compiler inlines and copies inside libc itself are not.
#include <stddef.h>
#include <wchar.h>

#include "counters.h"
#include "real_copy.h"

using namespace account;

extern "C" {
void __chk_fail(void) __attribute__((noreturn));

__attribute__((visibility("default"))) void* memcpy(void* dst, const void* src, size_t n) {
  count_copy(n);
  if (ACCOUNT_UNLIKELY(!real_copy_ready())) return bootstrap_move(dst, src, n);
  return g_real_copy.memcpy(dst, src, n);
}

__attribute__((visibility("default"))) void* memmove(void* dst, const void* src, size_t n) {
  count_copy(n);
  if (ACCOUNT_UNLIKELY(!real_copy_ready())) return bootstrap_move(dst, src, n);
  return g_real_copy.memmove(dst, src, n);
}

__attribute__((visibility("default"))) void* mempcpy(void* dst, const void* src, size_t n) {
  count_copy(n);
  if (ACCOUNT_UNLIKELY(!real_copy_ready()))
    return static_cast<char*>(bootstrap_move(dst, src, n)) + n;
  return g_real_copy.mempcpy(dst, src, n);
}

__attribute__((visibility("default"))) void bcopy(const void* src, void* dst, size_t n) {
  count_copy(n);
  if (ACCOUNT_UNLIKELY(!real_copy_ready())) {
    bootstrap_move(dst, src, n);
    return;
  }
  g_real_copy.memmove(dst, src, n);
}

__attribute__((visibility("default"))) void* __memcpy_chk(void* dst, const void* src, size_t n,
                                                          size_t dstlen) {
  count_copy(n);
  if (ACCOUNT_UNLIKELY(!real_copy_ready())) {
    if (dstlen < n) __chk_fail();
    return bootstrap_move(dst, src, n);
  }
  return g_real_copy.memcpy_chk(dst, src, n, dstlen);
}

__attribute__((visibility("default"))) void* __memmove_chk(void* dst, const void* src, size_t n,
                                                           size_t dstlen) {
  count_copy(n);
  if (ACCOUNT_UNLIKELY(!real_copy_ready())) {
    if (dstlen < n) __chk_fail();
    return bootstrap_move(dst, src, n);
  }
  return g_real_copy.memmove_chk(dst, src, n, dstlen);
}

__attribute__((visibility("default"))) void* __mempcpy_chk(void* dst, const void* src, size_t n,
                                                           size_t dstlen) {
  count_copy(n);
  if (ACCOUNT_UNLIKELY(!real_copy_ready())) {
    if (dstlen < n) __chk_fail();
    return static_cast<char*>(bootstrap_move(dst, src, n)) + n;
  }
  return g_real_copy.mempcpy_chk(dst, src, n, dstlen);
}

__attribute__((visibility("default"))) wchar_t* wmemcpy(wchar_t* dst, const wchar_t* src,
                                                        size_t n) {
  count_copy(n * sizeof(wchar_t));
  if (ACCOUNT_UNLIKELY(!real_copy_ready()))
    return static_cast<wchar_t*>(bootstrap_move(dst, src, n * sizeof(wchar_t)));
  return g_real_copy.wmemcpy(dst, src, n);
}

__attribute__((visibility("default"))) wchar_t* wmemmove(wchar_t* dst, const wchar_t* src,
                                                         size_t n) {
  count_copy(n * sizeof(wchar_t));
  if (ACCOUNT_UNLIKELY(!real_copy_ready()))
    return static_cast<wchar_t*>(bootstrap_move(dst, src, n * sizeof(wchar_t)));
  return g_real_copy.wmemmove(dst, src, n);
}

}  // extern "C"
