#include "real_copy.h"

#include "find_next.h"

namespace account {

namespace {

// What g_real_copy holds until glibc's functions are found: each resolves them
// and calls the real one, or copies by hand while resolution is under way. So
// the interposers' fast paths call through the table with no NULL test.
void* memcpy_first(void* dst, const void* src, size_t n) {
  return real_copy_ready() ? g_real_copy.memcpy(dst, src, n) : bootstrap_move(dst, src, n);
}

void* memmove_first(void* dst, const void* src, size_t n) {
  return real_copy_ready() ? g_real_copy.memmove(dst, src, n) : bootstrap_move(dst, src, n);
}

void* mempcpy_first(void* dst, const void* src, size_t n) {
  if (real_copy_ready()) return g_real_copy.mempcpy(dst, src, n);
  return static_cast<char*>(bootstrap_move(dst, src, n)) + n;
}

wchar_t* wmemcpy_first(wchar_t* dst, const wchar_t* src, size_t n) {
  if (real_copy_ready()) return g_real_copy.wmemcpy(dst, src, n);
  return static_cast<wchar_t*>(bootstrap_move(dst, src, n * sizeof(wchar_t)));
}

wchar_t* wmemmove_first(wchar_t* dst, const wchar_t* src, size_t n) {
  if (real_copy_ready()) return g_real_copy.wmemmove(dst, src, n);
  return static_cast<wchar_t*>(bootstrap_move(dst, src, n * sizeof(wchar_t)));
}

}  // namespace

RealCopy g_real_copy = {memcpy_first, memmove_first, mempcpy_first, wmemcpy_first, wmemmove_first};
int g_real_copy_ready = 0;

namespace {
int g_resolving = 0;
}  // namespace

bool resolve_real_copy() {
  if (__atomic_exchange_n(&g_resolving, 1, __ATOMIC_ACQ_REL) != 0)
    return __atomic_load_n(&g_real_copy_ready, __ATOMIC_ACQUIRE);
  RealCopy r{};
  // Each is looked up, also after one was not found.
  const bool found[] = {find_next(&r.memcpy, "memcpy"), find_next(&r.memmove, "memmove"),
                        find_next(&r.mempcpy, "mempcpy"), find_next(&r.wmemcpy, "wmemcpy"),
                        find_next(&r.wmemmove, "wmemmove")};
  bool complete = true;
  for (bool f : found) complete = complete && f;
  if (complete) {
    // Field by field: a struct assignment could be compiled into a memcpy call.
    g_real_copy.memcpy = r.memcpy;
    g_real_copy.memmove = r.memmove;
    g_real_copy.mempcpy = r.mempcpy;
    g_real_copy.wmemcpy = r.wmemcpy;
    g_real_copy.wmemmove = r.wmemmove;
    __atomic_store_n(&g_real_copy_ready, 1, __ATOMIC_RELEASE);
  }
  __atomic_store_n(&g_resolving, 0, __ATOMIC_RELEASE);
  return complete;
}

void* bootstrap_move(void* dst, const void* src, size_t n) {
  volatile unsigned char* d = static_cast<unsigned char*>(dst);
  const unsigned char* s = static_cast<const unsigned char*>(src);
  if (d < s || d >= s + n) {
    for (size_t i = 0; i < n; ++i) d[i] = s[i];
  } else {
    for (size_t i = n; i > 0; --i) d[i - 1] = s[i - 1];
  }
  return dst;
}

}  // namespace account
