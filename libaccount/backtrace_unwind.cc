#include "backtrace_unwind.h"

#include <dlfcn.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "backtrace.h"
#include "backtrace_store.h"

#ifndef ACCOUNT_LIBUNWIND_SONAME
#define ACCOUNT_LIBUNWIND_SONAME "libunwind.so.8"
#endif

// libunwind.h maps the unw_* names to per-architecture symbols
// (unw_set_caching_policy -> _ULx86_64_set_caching_policy): dlsym needs those.
#define ACCOUNT_SYMBOL_NAME(x) ACCOUNT_SYMBOL_NAME2(x)
#define ACCOUNT_SYMBOL_NAME2(x) #x

namespace account {

namespace {

using BacktraceFn = int (*)(void**, int);
using SetCachingFn = int (*)(unw_addr_space_t, unw_caching_policy_t);
using GetAccessorsFn = unw_accessors_t* (*)(unw_addr_space_t);

// --- memory access without a pipe -------------------------------------------
// Debian's libunwind is built with conservative checks: every memory read is
// validated first, by writing the byte to a pipe it opens on first use and keeps
// (two descriptors the program would see, possibly 0-2). We replace its
// access_mem with one that validates without a descriptor: rt_sigprocmask
// with an invalid `how` copies the 8 bytes from the address and fails with
// EFAULT if they are unreadable, EINVAL otherwise, never changing the mask (the
// check Abseil's AddressIsReadable uses). Pages found readable are remembered
// for the rest of one capture only (a page could be unmapped between captures).

constexpr int kGoodPages = 16;
__thread uintptr_t tls_good_pages[kGoodPages] __attribute__((tls_model("initial-exec")));
__thread int tls_good_next __attribute__((tls_model("initial-exec")));

bool known_good(uintptr_t page) {
  for (uintptr_t good : tls_good_pages)
    if (good == page) return true;
  return false;
}

// Whether the aligned word at `addr` (within one page) can be read.
bool word_readable(uintptr_t addr) {
  uintptr_t page = addr & ~uintptr_t(4095);
  if (page == 0) return false;
  if (known_good(page)) return true;
  long r = syscall(SYS_rt_sigprocmask, ~0, reinterpret_cast<void*>(addr & ~uintptr_t(7)), nullptr,
                   sizeof(unw_word_t));
  if (r == 0 || errno == EFAULT) return false;
  tls_good_pages[tls_good_next] = page;
  tls_good_next = (tls_good_next + 1) % kGoodPages;
  return true;
}

bool readable(uintptr_t addr) {
  // A misaligned word may straddle two pages: check both ends.
  return word_readable(addr) && word_readable(addr + sizeof(unw_word_t) - 1);
}

int access_mem(unw_addr_space_t, unw_word_t addr, unw_word_t* val, int write, void*) {
  if (write) {
    *reinterpret_cast<unw_word_t*>(addr) = *val;
    return 0;
  }
  if (!readable(addr)) return -UNW_EINVAL;
  *val = *reinterpret_cast<const unw_word_t*>(addr);
  return 0;
}

BacktraceFn g_backtrace = nullptr;

struct Range {
  uintptr_t start = 0, end = 0;
  bool contains(uintptr_t ip) const { return ip >= start && ip < end; }
};
Range g_self, g_unwinder;

Range range_of(const void* address) {
  ModuleInfo info;
  Range r;
  if (module_containing(reinterpret_cast<uintptr_t>(address), &info)) {
    r.start = info.start;
    r.end = info.end;
  }
  return r;
}

}  // namespace

__attribute__((noinline)) int unwinder_capture(uintptr_t* ips, int max) {
  if (!g_backtrace) return 0;
  for (uintptr_t& good : tls_good_pages) good = 0;
  return g_backtrace(reinterpret_cast<void**>(ips), max);
}

namespace {

bool load(const char** why) {
  void* lib = dlopen(ACCOUNT_LIBUNWIND_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    *why = "cannot load " ACCOUNT_LIBUNWIND_SONAME;
    return false;
  }
  auto backtrace = reinterpret_cast<BacktraceFn>(dlsym(lib, "unw_backtrace"));
  auto set_caching =
      reinterpret_cast<SetCachingFn>(dlsym(lib, ACCOUNT_SYMBOL_NAME(unw_set_caching_policy)));
  auto get_accessors =
      reinterpret_cast<GetAccessorsFn>(dlsym(lib, ACCOUNT_SYMBOL_NAME(unw_get_accessors)));
  auto space =
      static_cast<unw_addr_space_t*>(dlsym(lib, ACCOUNT_SYMBOL_NAME(unw_local_addr_space)));
  if (!backtrace || !set_caching || !get_accessors || !space) {
    *why = ACCOUNT_LIBUNWIND_SONAME
        " lacks unw_backtrace, unw_get_accessors or unw_set_caching_policy";
    return false;
  }
  unw_accessors_t* accessors = get_accessors(*space);
  if (!accessors) {
    *why = "no local address space in " ACCOUNT_LIBUNWIND_SONAME;
    return false;
  }
  accessors->access_mem = access_mem;
  // The global cache holds a lock around dl_iterate_phdr (which takes the
  // loader's lock): per-thread caches need no lock at all.
  set_caching(*space, UNW_CACHE_PER_THREAD);
  g_self = range_of(reinterpret_cast<const void*>(&unwinder_capture));
  g_unwinder = range_of(reinterpret_cast<const void*>(backtrace));
  g_backtrace = backtrace;
  // The first unwind fills libunwind's lazily built state: now, single-threaded.
  uintptr_t ips[8];
  unwinder_capture(ips, 8);
  return true;
}

}  // namespace

bool unwinder_load(const char** why) {
  // libunwind initialises itself (and asks for its pipe) on the first call of
  // almost anything: all of it runs with the capture guard held, so pipe2 fails.
  tls_capturing = 1;
  bool ok = load(why);
  tls_capturing = 0;
  return ok;
}

bool unwinder_own_frame(uintptr_t ip) {
  return g_self.contains(ip) || g_unwinder.contains(ip);
}

}  // namespace account
