// chroot: a program that moves its root where the shim's file is not (a build
// chroot without the account package: chroot(1), schroot, sbuild) would have
// ld.so print "ERROR: ld.so: object ... from LD_PRELOAD cannot be preloaded
// ... ignored." on the stderr of every program it then execs. Once the call
// succeeded and the shim's path is missing in the new root, the process's
// LD_PRELOAD loses the shim's entry: the programs it execs start without the
// shim, silently, and account run counts them as processes without it
// (docs/run.md). The environment entry is replaced, never written in place
// (a program's putenv may have given a read-only string).
#include <dlfcn.h>
#include <errno.h>

#include "atomics.h"
#include "find_next.h"
#include "lifecycle.h"
#include "raw_syscall.h"
#include "settings.h"

using namespace account;

namespace {

using ChrootFn = int (*)(const char*);
ChrootFn g_next_chroot;

constexpr char kPreloadPrefix[] = "LD_PRELOAD=";
constexpr size_t kPreloadPrefixLength = sizeof kPreloadPrefix - 1;

// The LD_PRELOAD entry that replaces the process's: what is left of it.
ACCOUNT_LARGE_BSS char g_preload_without_shim[kPathCapacity + kPreloadPrefixLength];

void forget_shim_if_out_of_reach();

// The path ld.so loaded the shim from: the LD_PRELOAD entry, when it has a '/'.
const char* shim_path() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&forget_shim_if_out_of_reach), &info) || !info.dli_fname)
    return nullptr;
  return info.dli_fname;
}

// `list` (ld.so's separators: ':' and ' ') without the entries equal to
// `own`, into out[0..cap); false if it does not fit.
bool list_without(const char* list, const char* own, char* out, size_t cap) {
  size_t n = 0;
  bool first = true;
  while (*list) {
    const char* start = list;
    while (*list && *list != ':' && *list != ' ') ++list;
    size_t len = size_t(list - start);
    size_t i = 0;
    while (i < len && own[i] == start[i]) ++i;
    bool ours = i == len && own[i] == 0;
    if (len > 0 && !ours) {
      if (n + len + 2 > cap) return false;
      if (!first) out[n++] = ':';
      for (size_t k = 0; k < len; ++k) out[n++] = start[k];
      first = false;
    }
    if (*list) ++list;
  }
  out[n] = 0;
  return true;
}

void forget_shim_if_out_of_reach() {
  const char* own = shim_path();
  if (!own || own[0] != '/' || raw_exists(own) != -ENOENT) return;
  char** entry = find_env_entry("LD_PRELOAD");
  if (!entry) return;
  char* out = g_preload_without_shim;
  for (size_t k = 0; k < kPreloadPrefixLength; ++k) out[k] = kPreloadPrefix[k];
  if (list_without(*entry + kPreloadPrefixLength, own, out + kPreloadPrefixLength,
                   sizeof g_preload_without_shim - kPreloadPrefixLength))
    *entry = out;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int chroot(const char* path) {
  // Looked up at the first call: a program that never calls it pays nothing at its start.
  if (!g_next_chroot && !find_next(&g_next_chroot, "chroot")) {
    errno = ENOSYS;
    return -1;
  }
  int saved_errno = errno;
  int result = g_next_chroot(path);
  // A vfork child shares its parent's environment: it is left alone.
  if (result == 0 && called_by_own_image()) {
    forget_shim_if_out_of_reach();
    errno = saved_errno;
  }
  return result;
}

}  // extern "C"
