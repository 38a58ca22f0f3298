/// A function as the program would get it without the shim: the definition of
/// `name` that follows the shim in the lookup order (dlsym RTLD_NEXT).
#pragma once

#include <dlfcn.h>

namespace account {

/// Stores it in *slot and returns true; leaves *slot alone when there is none.
template <typename F>
bool find_next(F* slot, const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f) *slot = reinterpret_cast<F>(f);
  return f != nullptr;
}

/// The symbol versions a program's references carry on this architecture:
/// glibc's base version (the malloc family's, dl_iterate_phdr's) and
/// aligned_alloc's; null where unknown, and then only unversioned lookups are
/// made.
#if defined(__x86_64__) && defined(__LP64__)
inline constexpr const char* kGlibcBaseVersion = "GLIBC_2.2.5";
inline constexpr const char* kGlibcAlignedAllocVersion = "GLIBC_2.16";
#elif defined(__aarch64__)
inline constexpr const char* kGlibcBaseVersion = "GLIBC_2.17";
inline constexpr const char* kGlibcAlignedAllocVersion = "GLIBC_2.17";
#else
inline constexpr const char* kGlibcBaseVersion = nullptr;
inline constexpr const char* kGlibcAlignedAllocVersion = nullptr;
#endif

// A library may define a function at a hidden version only (glibc's
// libc_malloc_debug.so: malloc@GLIBC_2.2.5, no default). An unversioned lookup
// skips such a definition and a versioned one skips unversioned definitions
// (jemalloc's, the shim's); a program's reference, versioned, binds to the
// first of either kind. These two functions follow that rule.

/// The definition after the shim that a reference to `name` at `version`
/// binds to; with no version, the unversioned lookup's. *versions_differ
/// (when given) says whether the two lookups found different definitions.
void* next_definition(const char* name, const char* version, bool* versions_differ = nullptr);

/// Whether a definition of `name` at `version` lies in an object before the
/// one that defines `own`, the shim's definition, which an unversioned lookup
/// found first. From the shim's constructor only (see find_next.cc).
bool versioned_definition_precedes(const char* name, const char* version, void* own);

}  // namespace account
