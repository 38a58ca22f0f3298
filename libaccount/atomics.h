/// Relaxed single-writer updates and the few atomic operations the shim needs.
/// GCC builtins instead of <atomic>: the interposition layer stays free of the
/// standard library.
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

/// Adds to a counter only the calling thread writes (others only read it). One
/// instruction without a lock prefix on x86-64: as cheap as a load and a store,
/// and a signal handler that counts on the same thread cannot fall between the
/// read and the write and have its count overwritten.
template <typename T>
inline void add_owned(T* field, T v) {
  static_assert(sizeof(T) == 8, "64-bit counters");
#if defined(__x86_64__)
  asm volatile("addq %1, %0" : "+m"(*field) : "er"(v) : "cc");
#else
  __atomic_fetch_add(field, v, __ATOMIC_RELAXED);  // signal-safe elsewhere too
#endif
}

/// add_owned's subtraction that also says whether the result is negative, from
/// the flags of the same instruction.
inline bool sub_owned_goes_negative(int64_t* field, int64_t v) {
#if defined(__x86_64__)
  bool negative;
  asm volatile("subq %2, %0" : "+m"(*field), "=@ccs"(negative) : "er"(v));
  return negative;
#else
  return __atomic_sub_fetch(field, v, __ATOMIC_RELAXED) < 0;
#endif
}

/// Replaces a single-writer field if it still holds `expected`; signal-safe as
/// add_owned (cmpxchg without lock).
inline bool replace_owned(int64_t* field, int64_t expected, int64_t v) {
#if defined(__x86_64__)
  int64_t cur = expected;
  asm volatile("cmpxchgq %2, %1" : "+a"(cur), "+m"(*field) : "r"(v) : "cc");
  return cur == expected;
#else
  return __atomic_compare_exchange_n(field, &expected, v, false, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED);
#endif
}

/// Raises a single-writer maximum; signal-safe as add_owned (cmpxchg without lock).
inline void raise_owned(int64_t* field, int64_t v) {
#if defined(__x86_64__)
  int64_t cur = __atomic_load_n(field, __ATOMIC_RELAXED);
  while (cur < v) {
    int64_t expected = cur;
    asm volatile("cmpxchgq %2, %1" : "+a"(cur), "+m"(*field) : "r"(v) : "cc");
    if (cur == expected) return;  // stored; otherwise cur is the newer value
  }
#else
  raise_to(field, v);
#endif
}

/// Large arrays that a process start mostly leaves untouched go after every
/// small variable (the shim is linked with --sort-section=name): the small ones
/// then share a few pages, and each page a start writes is a page fault.
#define ACCOUNT_LARGE_BSS __attribute__((section(".bss.zz_large")))
/// The identity goes first after the small variables: its scalars and a short
/// command line then share the page ld.so already zeroed at the end of .data.
#define ACCOUNT_IDENTITY_BSS __attribute__((section(".bss.zy_identity")))
/// The settings go last in .data, next to the small variables written at
/// start-up: a start writes only the settings' first page.
#define ACCOUNT_SETTINGS_DATA __attribute__((section(".data.zz_settings")))

#define ACCOUNT_LIKELY(x) __builtin_expect(!!(x), 1)
#define ACCOUNT_UNLIKELY(x) __builtin_expect(!!(x), 0)

}  // namespace account
