#include "find_next.h"

#include <link.h>
#include <stdint.h>

namespace account {
namespace {

struct FirstOf {
  uintptr_t a, b;
  uintptr_t first = 0;
};

bool contains(const dl_phdr_info* info, uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && address >= start && address - start < ph.p_memsz) return true;
  }
  return false;
}

// dl_iterate_phdr visits the objects in load order, which for the objects
// of the global scope is their lookup order.
int first_object(dl_phdr_info* info, size_t, void* data) {
  auto* f = static_cast<FirstOf*>(data);
  if (contains(info, f->a))
    f->first = f->a;
  else if (contains(info, f->b))
    f->first = f->b;
  return f->first != 0;
}

using IteratePhdr = int (*)(int (*)(dl_phdr_info*, size_t, void*), void*);

// glibc's own, by its version: a sanitizer runtime loaded after the shim
// intercepts dl_iterate_phdr, and while it starts (when its first allocation
// reaches the shim, which then looks for the next malloc) its interceptor has
// nothing to call yet. Looked up only where the two lookups of malloc differ.
IteratePhdr libc_dl_iterate_phdr() {
  void* f = dlvsym(RTLD_NEXT, "dl_iterate_phdr", kGlibcBaseVersion);
  return f ? reinterpret_cast<IteratePhdr>(f) : dl_iterate_phdr;
}

void* first_in_lookup_order(void* a, void* b, IteratePhdr iterate) {
  FirstOf f{reinterpret_cast<uintptr_t>(a), reinterpret_cast<uintptr_t>(b)};
  iterate(first_object, &f);
  return f.first ? reinterpret_cast<void*>(f.first) : a;
}

}  // namespace

void* next_definition(const char* name, const char* version, bool* versions_differ) {
  void* unversioned = dlsym(RTLD_NEXT, name);
  if (!version) return unversioned;
  void* versioned = dlvsym(RTLD_NEXT, name, version);
  if (versions_differ) *versions_differ = versioned != unversioned;
  if (!versioned || versioned == unversioned) return unversioned;
  if (!unversioned) return versioned;
  return first_in_lookup_order(unversioned, versioned, libc_dl_iterate_phdr());
}

bool versioned_definition_precedes(const char* name, const char* version, void* own) {
  if (!version) return false;
  void* versioned = dlvsym(RTLD_DEFAULT, name, version);
  // Called from the shim's constructor, when the libraries after it have started.
  return versioned && versioned != own &&
         first_in_lookup_order(versioned, own, dl_iterate_phdr) == versioned;
}

}  // namespace account
