/// System calls made without glibc's wrappers, for the calls an image makes only
/// at its start and its end, and for every call the shim may make before its
/// constructor has run.
///
/// Why: a process start pays a page fault for every page of code and data it
/// touches for the first time (12-16 us each on a paravirtualized VM, where a
/// system call costs 1 us). glibc's wrappers for getpid, readlink or
/// clock_gettime sit on pages of libc (and the vDSO's) that a short program
/// such as /bin/true never touches, so calling them costs the faults, not the
/// calls. An inline system call instruction runs from the shim's own page.
/// And before the shim's constructor a library loaded after it may still be
/// starting: a sanitizer runtime intercepts open or mmap, and its wrapper
/// faults until it has started, while the shim already counts its first
/// allocations (into the image file, which these calls make).
/// Errors come back as -errno, as the kernel returns them; errno is untouched.
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

namespace account {

#if defined(__x86_64__)
inline long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0,
                        long f = 0) {
  long ret;
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}
#elif defined(__aarch64__)
inline long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0,
                        long f = 0) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                   : "memory", "cc");
  return x0;
}
#else
/// Elsewhere glibc's generic syscall(); errno is then set as well.
inline long raw_syscall(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0,
                        long f = 0) {
  long ret = syscall(n, a, b, c, d, e, f);
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

/// open(2) and the calls on its descriptor, each returning what the kernel
/// does (-errno on failure). EINTR is the caller's to retry.
inline int raw_open(const char* path, int flags, mode_t mode = 0) {
  return int(raw_syscall(SYS_openat, long(AT_FDCWD), long(path), long(flags), long(mode)));
}

/// openat2(2) with RESOLVE_NO_SYMLINKS: ELOOP when any component of `path` is
/// a symbolic link; -ENOSYS before Linux 5.6 (or under a seccomp filter that
/// does not know it).
inline int raw_open_no_symlinks(const char* path, int flags, mode_t mode) {
  open_how how{};
  how.flags = uint64_t(flags);
  how.mode = uint64_t(mode);
  how.resolve = RESOLVE_NO_SYMLINKS;
  return int(raw_syscall(SYS_openat2, long(AT_FDCWD), long(path), long(&how), long(sizeof how)));
}

inline int raw_close(int fd) {
  return int(raw_syscall(SYS_close, long(fd)));
}

inline long raw_pread(int fd, void* buf, size_t n, off_t at) {
  return raw_syscall(SYS_pread64, long(fd), long(buf), long(n), long(at));
}

inline long raw_write(int fd, const void* buf, size_t n) {
  return raw_syscall(SYS_write, long(fd), long(buf), long(n));
}

inline long raw_writev(int fd, const iovec* parts, int count) {
  return raw_syscall(SYS_writev, long(fd), long(parts), long(count));
}

inline int raw_ftruncate(int fd, off_t size) {
  return int(raw_syscall(SYS_ftruncate, long(fd), long(size)));
}

inline int raw_fchmod(int fd, mode_t mode) {
  return int(raw_syscall(SYS_fchmod, long(fd), long(mode)));
}

inline int raw_unlink(const char* path) {
  return int(raw_syscall(SYS_unlinkat, long(AT_FDCWD), long(path), 0));
}

/// stat(2) of `path`, following symbolic links.
inline int raw_stat(const char* path, struct stat* st) {
  return int(raw_syscall(SYS_newfstatat, long(AT_FDCWD), long(path), long(st), 0));
}

/// faccessat(2) with R_OK: 0 when this process's real user may read `path`.
inline int raw_readable(const char* path) {
  return int(raw_syscall(SYS_faccessat, long(AT_FDCWD), long(path), long(R_OK)));
}

inline int raw_mkdir(const char* path, mode_t mode) {
  return int(raw_syscall(SYS_mkdirat, long(AT_FDCWD), long(path), long(mode)));
}

inline int raw_fchown(int fd, uid_t uid, gid_t gid) {
  return int(raw_syscall(SYS_fchown, long(fd), long(uid), long(gid)));
}

inline uid_t raw_geteuid() {
  return uid_t(raw_syscall(SYS_geteuid));
}

/// mmap(2): the mapping, or nullptr (where glibc's returns MAP_FAILED).
inline void* raw_mmap(size_t size, int prot, int flags, int fd, off_t offset) {
  long p = raw_syscall(SYS_mmap, 0, long(size), long(prot), long(flags), long(fd), long(offset));
  return p < 0 && p >= -4095 ? nullptr : reinterpret_cast<void*>(p);
}

inline int raw_munmap(void* p, size_t size) {
  return int(raw_syscall(SYS_munmap, long(p), long(size)));
}

inline int raw_flock(int fd, int operation) {
  return int(raw_syscall(SYS_flock, long(fd), long(operation)));
}

/// fstat(2): the kernel's struct stat is glibc's on the 64-bit ABIs.
inline int raw_fstat(int fd, struct stat* st) {
  return int(raw_syscall(SYS_fstat, long(fd), long(st)));
}

inline int raw_dup_above(int fd, int lowest) {
  return int(raw_syscall(SYS_fcntl, long(fd), long(F_DUPFD_CLOEXEC), long(lowest)));
}

inline int raw_getrusage(int who, rusage* usage) {
  return int(raw_syscall(SYS_getrusage, long(who), long(usage)));
}

/// Whether a regular file may reach `size` bytes within the caller's
/// RLIMIT_FSIZE. Past it the kernel cuts a write short, or fails it or an
/// ftruncate with EFBIG and sends the caller SIGXFSZ, whose default action
/// ends the program: the shim's own files stay within it, so a program under
/// `ulimit -f` runs as it would without the shim. One system call.
inline bool raw_within_file_size_limit(uint64_t size) {
  struct rlimit limit;
  if (raw_syscall(SYS_prlimit64, 0, long(RLIMIT_FSIZE), 0, long(&limit)) != 0) return true;
  return limit.rlim_cur == RLIM_INFINITY || size <= uint64_t(limit.rlim_cur);
}

/// Raises the caller's soft limit on descriptors (RLIMIT_NOFILE) by up to
/// `more`, never past the hard limit; *saved gets the limits before. False if
/// it was not raised (already at the hard limit, or refused).
inline bool raw_raise_descriptor_limit(uint64_t more, struct rlimit* saved) {
  if (raw_syscall(SYS_prlimit64, 0, long(RLIMIT_NOFILE), 0, long(saved)) != 0) return false;
  if (saved->rlim_cur >= saved->rlim_max) return false;
  struct rlimit raised = *saved;
  raised.rlim_cur =
      saved->rlim_max - saved->rlim_cur > more ? saved->rlim_cur + more : saved->rlim_max;
  return raw_syscall(SYS_prlimit64, 0, long(RLIMIT_NOFILE), long(&raised), 0) == 0;
}

/// Sets RLIMIT_NOFILE back to what raw_raise_descriptor_limit saved.
inline void raw_restore_descriptor_limit(const struct rlimit& saved) {
  raw_syscall(SYS_prlimit64, 0, long(RLIMIT_NOFILE), long(&saved), 0);
}

/// Blocks every signal but glibc's two internal ones (SIGCANCEL, SIGSETXID:
/// 32 and 33), as pthread_sigmask with a sigfillset set does; *saved gets the
/// mask before. The kernel's sigset is 8 bytes.
inline void raw_block_signals(uint64_t* saved) {
  uint64_t all = ~((uint64_t(1) << 31) | (uint64_t(1) << 32));
  raw_syscall(SYS_rt_sigprocmask, long(SIG_BLOCK), long(&all), long(saved), 8);
}

inline void raw_restore_signals(const uint64_t* saved) {
  raw_syscall(SYS_rt_sigprocmask, long(SIG_SETMASK), long(saved), 0, 8);
}

/// readlink(2): the length read, or -errno.
inline long raw_readlink(const char* path, char* buf, size_t cap) {
#if defined(SYS_readlink)
  return raw_syscall(SYS_readlink, long(path), long(buf), long(cap));
#else
  return raw_syscall(SYS_readlinkat, long(AT_FDCWD), long(path), long(buf), long(cap));
#endif
}

}  // namespace account
