// Relaxed single-writer updates and the few atomic operations the shim needs.
// GCC builtins instead of <atomic>: the interposition layer stays free of the
// standard library.
#pragma once

#include <stdint.h>

namespace account {

template <typename T>
inline T load_relaxed(const T* p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}

template <typename T>
inline void store_relaxed(T* p, T v) {
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

template <typename T>
inline T fetch_add_relaxed(T* p, T v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

template <typename T>
inline void raise_to(T* p, T v) {  // atomic max
  T cur = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (cur < v &&
         !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

#define ACCOUNT_LIKELY(x) __builtin_expect(!!(x), 1)
#define ACCOUNT_UNLIKELY(x) __builtin_expect(!!(x), 0)

}  // namespace account
