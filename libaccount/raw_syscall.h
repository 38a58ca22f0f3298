// System calls made without glibc's wrappers, for the calls an image makes only
// at its start and its end.
//
// Why: a process start pays a page fault for every page of code and data it
// touches for the first time (12-16 us each on a paravirtualized VM, where a
// system call costs 1 us). glibc's wrappers for getpid, readlink or
// clock_gettime sit on pages of libc (and the vDSO's) that a short program
// such as /bin/true never touches, so calling them costs the faults, not the
// calls. An inline system call instruction runs from the shim's own page.
// Errors come back as -errno, as the kernel returns them; errno is untouched.
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

namespace account {

#if defined(__x86_64__)
inline long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0) {
  long ret;
  register long r10 __asm__("r10") = d;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                   : "rcx", "r11", "memory");
  return ret;
}
#elif defined(__aarch64__)
inline long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory", "cc");
  return x0;
}
#else
// Elsewhere glibc's generic syscall(); errno is then set as well.
inline long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0) {
  long ret = syscall(n, a, b, c, d);
  return ret == -1 ? -errno : ret;
}
#endif

inline pid_t raw_getpid() {
  return pid_t(raw_syscall(SYS_getpid));
}

inline pid_t raw_getppid() {
  return pid_t(raw_syscall(SYS_getppid));
}

inline uint64_t raw_clock_ns(clockid_t clock) {
  timespec ts{};
  raw_syscall(SYS_clock_gettime, long(clock), long(&ts));
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// readlink(2): the length read, or -errno.
inline long raw_readlink(const char* path, char* buf, size_t cap) {
#if defined(SYS_readlink)
  return raw_syscall(SYS_readlink, long(path), long(buf), long(cap));
#else
  return raw_syscall(SYS_readlinkat, long(AT_FDCWD), long(path), long(buf), long(cap));
#endif
}

}  // namespace account
