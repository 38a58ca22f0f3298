#include "shim_reach.h"

#include <dlfcn.h>

#include "atomics.h"
#include "raw_syscall.h"

namespace account {

namespace {

// The LD_PRELOAD entry that replaces the process's own (forget_shim_if_out_of_reach).
ACCOUNT_LARGE_BSS char g_preload_without_shim[kPreloadEntryCapacity];

// The path ld.so loaded the shim from (its LD_PRELOAD entry, when that has a
// '/'): the name in ld.so's list of objects, which lives as long as the
// process. Looked up at the first exec or chroot, not at every start.
const char* g_own_path;

const char* own_path() {
  const char* path = __atomic_load_n(&g_own_path, __ATOMIC_ACQUIRE);
  if (path) return path;
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&own_path), &info) || !info.dli_fname) return nullptr;
  __atomic_store_n(&g_own_path, info.dli_fname, __ATOMIC_RELEASE);
  return info.dli_fname;
}

// Calls each(start, length) for every non-empty entry of an LD_PRELOAD list
// (ld.so's separators: ':' and ' '); stops when it returns false.
template <typename Each>
void for_each_entry(const char* list, Each each) {
  while (*list) {
    const char* start = list;
    while (*list && *list != ':' && *list != ' ') ++list;
    if (list > start && !each(start, size_t(list - start))) return;
    if (*list) ++list;
  }
}

// Whether the entry start[0..len) is `own`.
bool is_own(const char* start, size_t len, const char* own) {
  size_t i = 0;
  while (i < len && own[i] == start[i]) ++i;
  return i == len && own[i] == 0;
}

bool list_has(const char* list, const char* own) {
  bool found = false;
  for_each_entry(list, [&](const char* start, size_t len) {
    found = is_own(start, len, own);
    return !found;
  });
  return found;
}

// "LD_PRELOAD=" and `list` without the entries equal to `own`, into
// out[0..cap); false if it does not fit.
bool entry_without(const char* list, const char* own, char* out, size_t cap) {
  size_t n = 0;
  for (; n < kPreloadPrefixLength; ++n) out[n] = kPreloadPrefix[n];
  size_t first = n;
  bool fits = true;
  for_each_entry(list, [&](const char* start, size_t len) {
    if (is_own(start, len, own)) return true;
    if (n + len + 2 > cap) return fits = false;
    if (n > first) out[n++] = ':';
    for (size_t k = 0; k < len; ++k) out[n++] = start[k];
    return true;
  });
  out[n] = 0;
  return fits;
}

// The shim's path when `entry` (an LD_PRELOAD entry, or nullptr) names it and
// this process cannot read it; nullptr otherwise.
const char* unreadable_own_entry(const char* const* entry) {
  if (!entry) return nullptr;
  const char* own = own_path();
  if (!own || own[0] != '/' || !list_has(*entry + kPreloadPrefixLength, own)) return nullptr;
  return raw_readable(own) == 0 ? nullptr : own;
}

}  // namespace

size_t env_entries(char* const* env) {
  size_t n = 0;
  while (env && env[n]) ++n;
  return n;
}

bool shim_out_of_reach_in(char* const* env) {
  return unreadable_own_entry(find_env_entry_in(env, "LD_PRELOAD")) != nullptr;
}

char* const* env_without_shim(char* const* env, char** copy, char* entry) {
  char* const* preload = find_env_entry_in(env, "LD_PRELOAD");
  const char* own = unreadable_own_entry(preload);
  if (!own || !entry_without(*preload + kPreloadPrefixLength, own, entry, kPreloadEntryCapacity))
    return env;
  size_t n = 0;
  for (; env[n]; ++n) copy[n] = env + n == preload ? entry : env[n];
  copy[n] = nullptr;
  return copy;
}

void forget_shim_if_out_of_reach() {
  char** preload = find_env_entry("LD_PRELOAD");
  const char* own = unreadable_own_entry(preload);
  if (own && entry_without(*preload + kPreloadPrefixLength, own, g_preload_without_shim,
                           sizeof g_preload_without_shim))
    *preload = g_preload_without_shim;
}

}  // namespace account
