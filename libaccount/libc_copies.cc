#include "libc_copies.h"

#include <elf.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wchar.h>

#include "real_copy.h"

namespace account {

namespace {

using CopyFn = void* (*)(void*, const void*, size_t);

// The C libraries whose slots this method has been checked against (the whole
// test suite, and the fork path read for copies between _Fork and the child
// handlers). Anything else: nothing is patched, the record says so.
const char* const kCheckedGlibc[] = {"2.36"};

// The implementations the patched slots held, by stand-in. Written before any
// slot points at a stand-in, never again.
constexpr int kTargets = 3;
CopyFn g_target[kTargets];
LibcCopies g_state = kLibcCopiesOff;

__attribute__((noinline, cold)) void* standin_rare(CopyFn fn, void* dst, const void* src,
                                                   size_t n) {
  // Inside realloc (its move is realloc_copied_bytes) or a fork under way (the
  // slot may be the parent's): not counted. Otherwise the thread has no slot of
  // its own yet, or shares slot 0: atomic adds there, without claiming a slot
  // (claiming calls into libc, which could copy and come back here).
  if (!(tls_libc_detour & (kLibcDetourAllocator | kLibcDetourFork))) {
    if (Region* r = __atomic_load_n(&g_region, __ATOMIC_ACQUIRE)) {
      Slot* s = &r->slots[kSharedSlot];
      fetch_add_relaxed(&s->libc_copied_calls, uint64_t{1});
      fetch_add_relaxed(&s->libc_copied_bytes, uint64_t{n});
    }
  }
  return fn(dst, src, n);
}

// What a patched slot calls instead of the implementation: memcpy, memmove and
// mempcpy all take (dst, src, n) with n in bytes and return what the
// implementation returns, so one stand-in per implementation serves any slot
// that holds it. Fast path: a TLS word, two adds on the thread's own slot, a
// tail call.
template <int I>
void* standin(void* dst, const void* src, size_t n) {
  CopyFn fn = g_target[I];
  if (ACCOUNT_UNLIKELY(tls_libc_detour != 0)) return standin_rare(fn, dst, src, n);
  Slot* s = tls_counting.slot;
  add_owned(&s->libc_copied_calls, uint64_t{1});
  add_owned(&s->libc_copied_bytes, uint64_t{n});
  return fn(dst, src, n);
}

const CopyFn kStandins[kTargets] = {standin<0>, standin<1>, standin<2>};

// glibc's wmemcpy and wmemmove are `n *= 4` and a jump through the memcpy and
// memmove slots: once those are patched, the shim's own wmemcpy (already
// counted) must not go that way too.
wchar_t* wmemcpy_direct(wchar_t* dst, const wchar_t* src, size_t n) {
  return static_cast<wchar_t*>(g_real_copy.memcpy(dst, src, n * sizeof(wchar_t)));
}

wchar_t* wmemmove_direct(wchar_t* dst, const wchar_t* src, size_t n) {
  return static_cast<wchar_t*>(g_real_copy.memmove(dst, src, n * sizeof(wchar_t)));
}

bool same_string(const char* a, const char* b) {
  while (*a && *a == *b) ++a, ++b;
  return *a == *b;
}

// libc.so as loaded: found by an address inside it.
struct Image {
  uintptr_t probe = 0;
  uintptr_t base = 0;
  const ElfW(Phdr) * phdr = nullptr;
  int phnum = 0;
};

int find_image(dl_phdr_info* info, size_t, void* data) {
  Image* image = static_cast<Image*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && image->probe >= start && image->probe < start + ph.p_memsz) {
      image->base = info->dlpi_addr;
      image->phdr = info->dlpi_phdr;
      image->phnum = info->dlpi_phnum;
      return 1;
    }
  }
  return 0;
}

bool inside_load(const Image& image, uintptr_t addr, size_t len, ElfW(Word) need_flags) {
  for (int i = 0; i < image.phnum; ++i) {
    const ElfW(Phdr)& ph = image.phdr[i];
    uintptr_t start = image.base + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && (ph.p_flags & need_flags) == need_flags && addr >= start &&
        addr + len <= start + ph.p_memsz)
      return true;
  }
  return false;
}

// The dynamic section's view of libc: relocations and the symbol table.
struct Dynamic {
  const ElfW(Rela) * rela = nullptr;
  size_t rela_size = 0;
  const ElfW(Rela) * jmprel = nullptr;
  size_t jmprel_size = 0;
  bool plt_is_rela = false;
  const ElfW(Sym) * symtab = nullptr;
  const char* strtab = nullptr;
  const uint32_t* gnu_hash = nullptr;
};

bool read_dynamic(const Image& image, Dynamic* d) {
  const ElfW(Dyn)* dyn = nullptr;
  for (int i = 0; i < image.phnum; ++i)
    if (image.phdr[i].p_type == PT_DYNAMIC)
      dyn = reinterpret_cast<const ElfW(Dyn)*>(image.base + image.phdr[i].p_vaddr);
  if (!dyn || image.base == 0) return false;
  // ld.so relocates most pointer entries in place (l_addr added); accept both.
  auto at = [&](ElfW(Addr) v) { return v >= image.base ? v : image.base + v; };
  for (; dyn->d_tag != DT_NULL; ++dyn) {
    switch (dyn->d_tag) {
      case DT_RELA:
        d->rela = reinterpret_cast<const ElfW(Rela)*>(at(dyn->d_un.d_ptr));
        break;
      case DT_RELASZ:
        d->rela_size = dyn->d_un.d_val;
        break;
      case DT_JMPREL:
        d->jmprel = reinterpret_cast<const ElfW(Rela)*>(at(dyn->d_un.d_ptr));
        break;
      case DT_PLTRELSZ:
        d->jmprel_size = dyn->d_un.d_val;
        break;
      case DT_PLTREL:
        d->plt_is_rela = dyn->d_un.d_val == DT_RELA;
        break;
      case DT_SYMTAB:
        d->symtab = reinterpret_cast<const ElfW(Sym)*>(at(dyn->d_un.d_ptr));
        break;
      case DT_STRTAB:
        d->strtab = reinterpret_cast<const char*>(at(dyn->d_un.d_ptr));
        break;
      case DT_GNU_HASH:
        d->gnu_hash = reinterpret_cast<const uint32_t*>(at(dyn->d_un.d_ptr));
        break;
    }
  }
  if (d->jmprel_size && !d->plt_is_rela) return false;
  return d->symtab && d->strtab && d->gnu_hash;
}

uint32_t gnu_hash_of(const char* name) {
  uint32_t h = 5381;
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(name); *p; ++p)
    h = h * 33 + *p;
  return h;
}

// The address of the IFUNC resolver `name` defines, or 0 unless exactly one
// defined IFUNC symbol has that name (memcpy@GLIBC_2.2.5 is a plain function:
// the old memmove-like memcpy).
uintptr_t ifunc_resolver(const Image& image, const Dynamic& d, const char* name) {
  const uint32_t* h = d.gnu_hash;
  uint32_t nbuckets = h[0], symoffset = h[1], bloom_size = h[2];
  if (nbuckets == 0) return 0;
  const uint32_t* buckets = h + 4 + bloom_size * (sizeof(ElfW(Addr)) / 4);
  const uint32_t* chain = buckets + nbuckets;
  uint32_t hash = gnu_hash_of(name);
  uint32_t index = buckets[hash % nbuckets];
  if (index < symoffset) return 0;
  uintptr_t found = 0;
  for (;; ++index) {
    uint32_t c = chain[index - symoffset];
    const ElfW(Sym)& sym = d.symtab[index];
    if ((c | 1) == (hash | 1) && ELF64_ST_TYPE(sym.st_info) == STT_GNU_IFUNC &&
        sym.st_shndx != SHN_UNDEF && same_string(d.strtab + sym.st_name, name)) {
      uintptr_t at = image.base + sym.st_value;
      if (found && found != at) return 0;
      found = at;
    }
    if (c & 1) break;
  }
  return found;
}

struct Patch {
  uintptr_t* slot;
  uintptr_t old_value;
  bool relro;
};

constexpr int kMaxPatches = 16;

// Stores `value` into a GOT slot: an aligned 8-byte store (atomic on x86-64:
// a thread calling through the slot meanwhile jumps to the old or the new
// target, both of which copy the same way). A RELRO page is made writable for
// the store and read-only again.
bool store_slot(const Patch& p, uintptr_t value, uintptr_t page_size) {
  void* page = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p.slot) & ~(page_size - 1));
  if (p.relro && mprotect(page, page_size, PROT_READ | PROT_WRITE) != 0) return false;
  __atomic_store_n(p.slot, value, __ATOMIC_RELEASE);
  if (p.relro) mprotect(page, page_size, PROT_READ);
  return true;
}

LibcCopies patch() {
#if !defined(__x86_64__)
  return kLibcCopiesUnrecognised;
#else
  const char* version = gnu_get_libc_version();
  bool checked = false;
  for (const char* v : kCheckedGlibc) checked |= same_string(version, v);
  if (!checked || !real_copy_ready()) return kLibcCopiesUnrecognised;

  Image image;
  image.probe = reinterpret_cast<uintptr_t>(&gnu_get_libc_version);
  if (!dl_iterate_phdr(find_image, &image) || !image.phdr) return kLibcCopiesUnrecognised;
  Dynamic d;
  if (!read_dynamic(image, &d)) return kLibcCopiesUnrecognised;

  // The three IFUNCs and what the shim resolved each to (the implementation
  // ld.so selected: dlsym runs the resolver). Each of their IRELATIVE slots
  // must hold exactly that.
  const char* const names[kTargets] = {"memcpy", "memmove", "mempcpy"};
  uintptr_t resolver[kTargets];
  uintptr_t impl[kTargets] = {reinterpret_cast<uintptr_t>(g_real_copy.memcpy),
                              reinterpret_cast<uintptr_t>(g_real_copy.memmove),
                              reinterpret_cast<uintptr_t>(g_real_copy.mempcpy)};
  for (int i = 0; i < kTargets; ++i) {
    resolver[i] = ifunc_resolver(image, d, names[i]);
    if (!resolver[i] || !inside_load(image, impl[i], 1, PF_X)) return kLibcCopiesUnrecognised;
  }

  // RELRO as ld.so protected it: whole pages from its start, up to the page
  // its end falls in.
  uintptr_t page_size = uintptr_t(getpagesize());
  uintptr_t relro_start = 0, relro_end = 0;
  for (int i = 0; i < image.phnum; ++i) {
    const ElfW(Phdr)& ph = image.phdr[i];
    if (ph.p_type != PT_GNU_RELRO) continue;
    relro_start = (image.base + ph.p_vaddr) & ~(page_size - 1);
    relro_end = (image.base + ph.p_vaddr + ph.p_memsz) & ~(page_size - 1);
  }

  Patch patches[kMaxPatches];
  int target_of[kMaxPatches];
  int count = 0;
  bool seen[kTargets] = {};
  const ElfW(Rela) * tables[2] = {d.rela, d.jmprel};
  size_t sizes[2] = {d.rela_size, d.jmprel_size};
  for (int t = 0; t < 2; ++t) {
    if (!tables[t]) continue;
    for (size_t k = 0; k < sizes[t] / sizeof(ElfW(Rela)); ++k) {
      const ElfW(Rela)& r = tables[t][k];
      if (ELF64_R_TYPE(r.r_info) != R_X86_64_IRELATIVE) continue;
      uintptr_t res = image.base + uintptr_t(r.r_addend);
      int which = -1;
      for (int i = 0; i < kTargets; ++i)
        if (res == resolver[i]) which = i;
      if (which < 0) continue;
      uintptr_t addr = image.base + r.r_offset;
      if (addr % sizeof(uintptr_t) != 0 || count == kMaxPatches) return kLibcCopiesUnrecognised;
      Patch& p = patches[count];
      p.slot = reinterpret_cast<uintptr_t*>(addr);
      p.relro = addr >= relro_start && addr + sizeof(uintptr_t) <= relro_end;
      if (!p.relro && !inside_load(image, addr, sizeof(uintptr_t), PF_R | PF_W))
        return kLibcCopiesUnrecognised;
      p.old_value = __atomic_load_n(p.slot, __ATOMIC_RELAXED);
      if (p.old_value != impl[which]) return kLibcCopiesUnrecognised;
      seen[which] = true;
      target_of[count++] = which;
    }
  }
  for (bool s : seen)
    if (!s) return kLibcCopiesUnrecognised;

  // One stand-in per distinct implementation (glibc 2.36 selects the same
  // one for memcpy and memmove).
  int standin_of[kTargets];
  int used = 0;
  for (int i = 0; i < kTargets; ++i) {
    standin_of[i] = -1;
    for (int j = 0; j < i; ++j)
      if (impl[j] == impl[i]) standin_of[i] = standin_of[j];
    if (standin_of[i] < 0) {
      standin_of[i] = used;
      g_target[used++] = reinterpret_cast<CopyFn>(impl[i]);
    }
  }

  // The shim's wmemcpy/wmemmove went to glibc's, which jump through the
  // memcpy/memmove slots: from now on they call the implementations directly.
  if (inside_load(image, reinterpret_cast<uintptr_t>(g_real_copy.wmemcpy), 1, PF_X))
    __atomic_store_n(&g_real_copy.wmemcpy, &wmemcpy_direct, __ATOMIC_RELEASE);
  if (inside_load(image, reinterpret_cast<uintptr_t>(g_real_copy.wmemmove), 1, PF_X))
    __atomic_store_n(&g_real_copy.wmemmove, &wmemmove_direct, __ATOMIC_RELEASE);

  for (int i = 0; i < count; ++i) {
    uintptr_t value = reinterpret_cast<uintptr_t>(kStandins[standin_of[target_of[i]]]);
    if (!store_slot(patches[i], value, page_size)) {
      for (int j = 0; j < i; ++j) store_slot(patches[j], patches[j].old_value, page_size);
      return kLibcCopiesUnrecognised;
    }
  }
  return kLibcCopiesCounted;
#endif
}

}  // namespace

LibcCopies patch_libc_copies() {
  g_state = patch();
  return g_state;
}

LibcCopies libc_copies_state() {
  return g_state;
}

void libc_copies_before_fork() {
  tls_libc_detour |= kLibcDetourFork;
}

void libc_copies_after_fork_in_parent() {
  tls_libc_detour &= ~kLibcDetourFork;
}

}  // namespace account
