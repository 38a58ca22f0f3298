#include "backtrace_store.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>

#include "atomics.h"
#include "counters.h"
#include "image_file.h"
#include "real_copy.h"
#include "settings.h"

namespace account {

BacktraceStore* g_backtrace_store = nullptr;

size_t backtrace_mapping_size(uint32_t capacity, uint32_t depth) {
  return sizeof(BacktraceStore) + size_t(capacity) * sizeof(BacktraceGroup) +
         size_t(capacity) * depth * sizeof(uintptr_t);
}

namespace {

constexpr uint32_t kNoPath = 0xffffffffu;

BacktraceGroup* groups_of(BacktraceStore* s) {
  return reinterpret_cast<BacktraceGroup*>(s + 1);
}
const BacktraceGroup* groups_of(const BacktraceStore* s) {
  return reinterpret_cast<const BacktraceGroup*>(s + 1);
}
uintptr_t* frames_of(BacktraceStore* s, uint32_t index) {
  return reinterpret_cast<uintptr_t*>(groups_of(s) + s->capacity) + size_t(index) * s->depth;
}
const uintptr_t* frames_of(const BacktraceStore* s, uint32_t index) {
  return reinterpret_cast<const uintptr_t*>(groups_of(s) + s->capacity) + size_t(index) * s->depth;
}

uint64_t stack_hash(const uintptr_t* ips, uint32_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (uint32_t i = 0; i < n; ++i) {
    h ^= ips[i];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h ? h : 1;
}

bool same_frames(const uintptr_t* a, const uintptr_t* b, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

void add_to(BacktraceGroup* g, const CaptureWeight& w) {
  fetch_add_relaxed(&g->count, w.count);
  fetch_add_relaxed(&g->bytes, w.bytes);
  raise_to(&g->largest, w.requested);
}

void add_other(BacktraceStore* s, const CaptureWeight& w, bool new_stack) {
  fetch_add_relaxed(&s->other_count, w.count);
  fetch_add_relaxed(&s->other_bytes, w.bytes);
  raise_to(&s->other_largest, w.requested);
  if (new_stack) fetch_add_relaxed(&s->other_stacks, uint64_t{1});
}

// --- modules ---------------------------------------------------------------

struct Search {
  uintptr_t ip;
  ModuleInfo* out;
  bool found;
};

void read_build_id(const dl_phdr_info* info, const ElfW(Phdr) & ph, ModuleInfo* out) {
  const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
  const char* end = p + ph.p_memsz;
  while (p + sizeof(ElfW(Nhdr)) <= end) {
    const ElfW(Nhdr)* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
    const char* name = p + sizeof(ElfW(Nhdr));
    const char* desc = name + ((note->n_namesz + 3) & ~3u);
    const char* next = desc + ((note->n_descsz + 3) & ~3u);
    if (next > end) return;
    if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && name[0] == 'G' &&
        name[1] == 'N' && name[2] == 'U' && name[3] == 0) {
      uint32_t n = note->n_descsz < kBuildIdMax ? note->n_descsz : kBuildIdMax;
      uncounted_copy(out->build_id, desc, n);
      out->build_id_len = n;
      return;
    }
    p = next;
  }
}

int find_object(dl_phdr_info* info, size_t, void* data) {
  Search* search = static_cast<Search*>(data);
  uint64_t lo = UINT64_MAX, hi = 0;
  bool inside = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    uint64_t start = info->dlpi_addr + ph.p_vaddr;
    uint64_t end = start + ph.p_memsz;
    if (start < lo) lo = start;
    if (end > hi) hi = end;
    if (search->ip >= start && search->ip < end) inside = true;
  }
  if (!inside) return 0;
  ModuleInfo* out = search->out;
  out->path = info->dlpi_name ? info->dlpi_name : "";
  out->base = info->dlpi_addr;
  out->start = lo;
  out->end = hi;
  out->build_id_len = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_NOTE && out->build_id_len == 0)
      read_build_id(info, info->dlpi_phdr[i], out);
  search->found = true;
  return 1;
}

bool module_known(const BacktraceStore* s, uintptr_t ip) {
  uint32_t n = __atomic_load_n(&s->module_count, __ATOMIC_ACQUIRE);
  if (n > kBacktraceMaxModules) n = kBacktraceMaxModules;
  for (uint32_t i = 0; i < n; ++i) {
    const BacktraceModule& m = s->modules[i];
    if (__atomic_load_n(&m.ready, __ATOMIC_ACQUIRE) && ip >= m.start && ip < m.end) return true;
  }
  return false;
}

// Lock-free: an index and path room are reserved with fetch_add. Two threads
// may register the same object at once; the record skips the duplicate.
void register_module(BacktraceStore* s, const ModuleInfo& info) {
  uint32_t index = fetch_add_relaxed(&s->module_count, 1u);
  if (index >= kBacktraceMaxModules) return;
  BacktraceModule& m = s->modules[index];
  uint32_t len = uint32_t(string_length(info.path));
  uint32_t offset = fetch_add_relaxed(&s->path_used, len);
  if (uint64_t(offset) + len <= kBacktracePathPool) {
    uncounted_copy(s->paths + offset, info.path, len);
    m.path_offset = offset;
    m.path_len = len;
  } else {
    m.path_offset = kNoPath;
    m.path_len = 0;
  }
  m.base = info.base;
  m.start = info.start;
  m.end = info.end;
  m.build_id_len = info.build_id_len;
  uncounted_copy(m.build_id, info.build_id, info.build_id_len);
  __atomic_store_n(&m.ready, 1u, __ATOMIC_RELEASE);
}

void register_modules(BacktraceStore* s, const uintptr_t* ips, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    if (module_known(s, ips[i])) continue;
    ModuleInfo info;
    if (module_containing(ips[i], &info)) register_module(s, info);
  }
}

// --- record -----------------------------------------------------------------

// What a group is ranked by for the record's choice of groups: its bytes, its
// live bytes, or its temporaries (ties: count, then the earlier entry).
enum class Rank { kBytes, kLive, kTemporary };

uint64_t rank_value(const BacktraceGroup& g, Rank r) {
  switch (r) {
    case Rank::kLive: {
      int64_t live = load_relaxed(&g.live_bytes);
      return live > 0 ? uint64_t(live) : 0;
    }
    case Rank::kTemporary:
      return load_relaxed(&g.temporary_count);
    case Rank::kBytes:
      break;
  }
  return load_relaxed(&g.bytes);
}

bool larger(const BacktraceGroup& a, uint32_t ai, const BacktraceGroup& b, uint32_t bi, Rank r) {
  uint64_t av = rank_value(a, r), bv = rank_value(b, r);
  if (av != bv) return av > bv;
  uint64_t ac = load_relaxed(&a.count), bc = load_relaxed(&b.count);
  if (ac != bc) return ac > bc;
  return ai < bi;
}

// The `max` largest ready groups by `r` (only those above 0 but for kBytes),
// sorted, into top[]; no allocation. Returns how many.
uint32_t largest_groups(const BacktraceGroup* groups, uint32_t capacity, Rank r, uint32_t* top,
                        uint32_t max) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < capacity; ++i) {
    if (!__atomic_load_n(&groups[i].ready, __ATOMIC_ACQUIRE)) continue;
    if (r != Rank::kBytes && rank_value(groups[i], r) == 0) continue;
    if (kept == max) {
      uint32_t last = top[kept - 1];
      if (!larger(groups[i], i, groups[last], last, r)) continue;
      --kept;
    }
    uint32_t pos = kept++;
    while (pos > 0 && larger(groups[i], i, groups[top[pos - 1]], top[pos - 1], r)) {
      top[pos] = top[pos - 1];
      --pos;
    }
    top[pos] = i;
  }
  return kept;
}

bool listed(const uint32_t* top, uint32_t n, uint32_t index) {
  for (uint32_t i = 0; i < n; ++i)
    if (top[i] == index) return true;
  return false;
}

void put_build_id(TextBuffer& out, const uint8_t* id, uint32_t n) {
  static const char kDigits[] = "0123456789abcdef";
  out.put('"');
  for (uint32_t i = 0; i < n; ++i) out.put(kDigits[id[i] >> 4]), out.put(kDigits[id[i] & 15]);
  out.put('"');
}

}  // namespace

void put_hex(TextBuffer& out, uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  char digits[16];
  int n = 0;
  do {
    digits[n++] = kDigits[v & 15];
    v >>= 4;
  } while (v);
  out.put("0x");
  while (n) out.put(digits[--n]);
}

void put_hex_string(TextBuffer& out, uint64_t v) {
  out.put('"');
  put_hex(out, v);
  out.put('"');
}

bool module_containing(uintptr_t ip, ModuleInfo* out) {
  Search search{ip, out, false};
  dl_iterate_phdr(find_object, &search);
  return search.found;
}

bool create_backtrace_store(uint32_t depth, uint64_t threshold, uint64_t sample_bytes) {
  if (g_backtrace_store) {
    munmap(g_backtrace_store,
           backtrace_mapping_size(g_backtrace_store->capacity, g_backtrace_store->depth));
    g_backtrace_store = nullptr;
  }
  if (depth < 1) depth = 1;
  if (depth > kBacktraceMaxDepth) depth = kBacktraceMaxDepth;
  // Deep stacks get fewer entries so the mapping stays about 1-2 MiB of address
  // space (pages are touched only as groups appear).
  uint32_t capacity = depth <= 64 ? 4096 : 1024;
  uint64_t offset;
  void* p = map_image_part(backtrace_mapping_size(capacity, depth), &offset);
  if (!p) return false;
  BacktraceStore* s = static_cast<BacktraceStore*>(p);
  s->depth = depth;
  s->capacity = capacity;
  s->limit = capacity / 4 * 3;
  s->threshold = threshold;
  s->sample_bytes = sample_bytes;
  __atomic_store_n(&g_backtrace_store, s, __ATOMIC_RELEASE);
  if (offset && g_region) __atomic_store_n(&g_region->backtrace_offset, offset, __ATOMIC_RELEASE);
  return true;
}

int32_t backtrace_store_add(BacktraceStore* s, const uintptr_t* ips, uint32_t n,
                            const CaptureWeight& w) {
  if (n > s->depth) n = s->depth;
  uint64_t h = stack_hash(ips, n);
  uint32_t mask = s->capacity - 1;
  BacktraceGroup* groups = groups_of(s);
  uint32_t index = uint32_t(h) & mask;
  for (uint32_t probe = 0; probe < s->capacity; ++probe, index = (index + 1) & mask) {
    BacktraceGroup* g = &groups[index];
    uint64_t seen = __atomic_load_n(&g->hash, __ATOMIC_ACQUIRE);
    if (seen == 0) {
      if (load_relaxed(&s->used) >= s->limit) break;
      if (__atomic_compare_exchange_n(&g->hash, &seen, h, false, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE)) {
        fetch_add_relaxed(&s->used, 1u);
        uncounted_copy(frames_of(s, index), ips, n * sizeof(uintptr_t));
        g->depth = n;
        __atomic_store_n(&g->ready, 1u, __ATOMIC_RELEASE);
        add_to(g, w);
        register_modules(s, ips, n);
        return int32_t(index);
      }
      // Another thread took the entry first: `seen` now holds its hash.
    }
    if (seen != h) continue;
    // Same hash: wait for its frames (another thread is copying a few words).
    while (!__atomic_load_n(&g->ready, __ATOMIC_ACQUIRE)) __builtin_ia32_pause();
    if (g->depth == n && same_frames(frames_of(s, index), ips, n)) {
      add_to(g, w);
      return int32_t(index);
    }
  }
  add_other(s, w, true);
  return kNoGroup;
}

void backtrace_group_live(BacktraceStore* s, int32_t index, uint64_t requested, int sign) {
  bool grouped = index >= 0 && uint32_t(index) < s->capacity;
  int64_t* count = grouped ? &groups_of(s)[index].live_count : &s->other_live_count;
  int64_t* bytes = grouped ? &groups_of(s)[index].live_bytes : &s->other_live_bytes;
  fetch_add_relaxed(count, int64_t(sign));
  fetch_add_relaxed(bytes, int64_t(sign) * int64_t(requested));
}

void backtrace_group_temporary(BacktraceStore* s, int32_t index, uint64_t requested) {
  bool grouped = index >= 0 && uint32_t(index) < s->capacity;
  fetch_add_relaxed(grouped ? &groups_of(s)[index].temporary_count : &s->other_temporary_count,
                    uint64_t{1});
  fetch_add_relaxed(grouped ? &groups_of(s)[index].temporary_bytes : &s->other_temporary_bytes,
                    requested);
}

uint32_t backtrace_group_frames(const BacktraceStore* s, int32_t index, uintptr_t* out,
                                uint32_t max) {
  if (index < 0 || uint32_t(index) >= s->capacity) return 0;
  const BacktraceGroup& g = groups_of(s)[index];
  if (!__atomic_load_n(&g.ready, __ATOMIC_ACQUIRE)) return 0;
  uint32_t n = g.depth < max ? g.depth : max;
  const uintptr_t* frames = frames_of(s, uint32_t(index));
  for (uint32_t i = 0; i < n; ++i) out[i] = frames[i];
  return n;
}

void compose_backtraces(TextBuffer& out, const BacktraceStore* s, const char* exe, bool at_exit) {
  const BacktraceGroup* groups = groups_of(s);
  bool leaks = load_relaxed(&s->leaks) != 0;
  // The largest groups by bytes; with leaks on, also those holding the most
  // live bytes at the end and those making the most temporaries (each list
  // once), so a small leak is not lost among large allocations.
  uint32_t top[kBacktraceRecordGroups];
  uint32_t top_live[kBacktraceLeakGroups];
  uint32_t top_temporary[kBacktraceLeakGroups];
  uint32_t kept = largest_groups(groups, s->capacity, Rank::kBytes, top, kBacktraceRecordGroups);
  uint32_t live = leaks && at_exit ? largest_groups(groups, s->capacity, Rank::kLive, top_live,
                                                    kBacktraceLeakGroups)
                                   : 0;
  uint32_t temporary = leaks ? largest_groups(groups, s->capacity, Rank::kTemporary, top_temporary,
                                              kBacktraceLeakGroups)
                             : 0;
  uint32_t chosen[kBacktraceRecordGroups + 2 * kBacktraceLeakGroups];
  uint32_t n_chosen = 0;
  for (uint32_t k = 0; k < kept; ++k) chosen[n_chosen++] = top[k];
  for (uint32_t k = 0; k < live; ++k)
    if (!listed(chosen, n_chosen, top_live[k])) chosen[n_chosen++] = top_live[k];
  for (uint32_t k = 0; k < temporary; ++k)
    if (!listed(chosen, n_chosen, top_temporary[k])) chosen[n_chosen++] = top_temporary[k];

  // Every ready group not chosen is summed as "other".
  uint64_t rest_groups = 0, rest_count = 0, rest_bytes = 0, rest_largest = 0;
  int64_t rest_live_count = 0, rest_live_bytes = 0;
  uint64_t rest_temporary_count = 0, rest_temporary_bytes = 0;
  for (uint32_t i = 0; i < s->capacity; ++i) {
    if (!__atomic_load_n(&groups[i].ready, __ATOMIC_ACQUIRE) || listed(chosen, n_chosen, i))
      continue;
    const BacktraceGroup& g = groups[i];
    ++rest_groups;
    rest_count += load_relaxed(&g.count);
    rest_bytes += load_relaxed(&g.bytes);
    uint64_t l = load_relaxed(&g.largest);
    if (l > rest_largest) rest_largest = l;
    rest_live_count += load_relaxed(&g.live_count);
    rest_live_bytes += load_relaxed(&g.live_bytes);
    rest_temporary_count += load_relaxed(&g.temporary_count);
    rest_temporary_bytes += load_relaxed(&g.temporary_bytes);
  }
  auto put_leak_fields = [&](int64_t live_count, int64_t live_bytes, uint64_t temporary_count,
                             uint64_t temporary_bytes) {
    if (!leaks) return;
    if (at_exit) {
      out.field("live_count", uint64_t(live_count > 0 ? live_count : 0));
      out.field("live_bytes", uint64_t(live_bytes > 0 ? live_bytes : 0));
    }
    out.field("temporary_count", temporary_count);
    out.field("temporary_bytes", temporary_bytes);
  };

  out.field("backtrace_min", s->threshold);
  if (s->sample_bytes) out.field("backtrace_sample_bytes", s->sample_bytes);
  out.field("backtrace_depth", s->depth);
  if (leaks) {
    out.key("backtrace_leaks"), out.put("true");
    out.field("backtrace_untracked_blocks", load_relaxed(&s->untracked_blocks));
  }
  out.key("backtraces");
  out.put('[');
  for (uint32_t k = 0; k < n_chosen; ++k) {
    const BacktraceGroup& g = groups[chosen[k]];
    if (k) out.put(',');
    out.begin_object();
    out.field("count", load_relaxed(&g.count));
    out.field("bytes", load_relaxed(&g.bytes));
    out.field("largest", load_relaxed(&g.largest));
    put_leak_fields(load_relaxed(&g.live_count), load_relaxed(&g.live_bytes),
                    load_relaxed(&g.temporary_count), load_relaxed(&g.temporary_bytes));
    out.key("frames");
    out.put('[');
    const uintptr_t* frames = frames_of(s, chosen[k]);
    for (uint32_t f = 0; f < g.depth; ++f) {
      if (f) out.put(',');
      put_hex_string(out, frames[f]);
    }
    out.put(']');
    out.end_object();
  }
  out.put(']');

  uint64_t other_count = load_relaxed(&s->other_count) + rest_count;
  if (other_count > 0) {
    uint64_t largest = load_relaxed(&s->other_largest);
    out.key("backtraces_other");
    out.begin_object();
    out.field("groups", rest_groups + load_relaxed(&s->other_stacks));
    out.field("count", other_count);
    out.field("bytes", load_relaxed(&s->other_bytes) + rest_bytes);
    out.field("largest", largest > rest_largest ? largest : rest_largest);
    put_leak_fields(load_relaxed(&s->other_live_count) + rest_live_count,
                    load_relaxed(&s->other_live_bytes) + rest_live_bytes,
                    load_relaxed(&s->other_temporary_count) + rest_temporary_count,
                    load_relaxed(&s->other_temporary_bytes) + rest_temporary_bytes);
    out.end_object();
  }

  out.key("backtrace_modules");
  out.put('[');
  uint32_t n = __atomic_load_n(&s->module_count, __ATOMIC_ACQUIRE);
  if (n > kBacktraceMaxModules) n = kBacktraceMaxModules;
  bool first = true;
  for (uint32_t i = 0; i < n; ++i) {
    const BacktraceModule& m = s->modules[i];
    if (!__atomic_load_n(&m.ready, __ATOMIC_ACQUIRE)) continue;
    bool duplicate = false;
    for (uint32_t j = 0; j < i && !duplicate; ++j)
      duplicate = __atomic_load_n(&s->modules[j].ready, __ATOMIC_ACQUIRE) &&
                  s->modules[j].start == m.start && s->modules[j].end == m.end;
    if (duplicate) continue;
    if (!first) out.put(',');
    first = false;
    out.begin_object();
    out.key("path");
    if (m.path_offset == kNoPath)
      out.put_json_string("");
    else if (m.path_len == 0)
      out.put_json_string(exe);  // the main program
    else
      out.put_json_string(s->paths + m.path_offset, m.path_len);
    out.key("base"), put_hex_string(out, m.base);
    out.key("start"), put_hex_string(out, m.start);
    out.key("end"), put_hex_string(out, m.end);
    if (m.build_id_len) out.key("build_id"), put_build_id(out, m.build_id, m.build_id_len);
    out.end_object();
  }
  out.put(']');
}

void pin_backtrace_copy(BacktraceStore* s, uint32_t capacity, uint32_t depth) {
  s->capacity = capacity;
  s->depth = depth;
  auto* groups = reinterpret_cast<BacktraceGroup*>(s + 1);
  for (uint32_t i = 0; i < capacity; ++i)
    if (groups[i].depth > depth) groups[i].depth = depth;
  if (s->module_count > kBacktraceMaxModules) s->module_count = kBacktraceMaxModules;
  for (BacktraceModule& m : s->modules) {
    if (m.path_offset != kNoPath && uint64_t(m.path_offset) + m.path_len > kBacktracePathPool)
      m.path_offset = kNoPath, m.path_len = 0;
    if (m.build_id_len > kBuildIdMax) m.build_id_len = 0;
  }
}

size_t backtrace_record_capacity(const BacktraceStore* s) {
  // A frame is at most "0x" + 16 digits, quotes and a comma; a module line at
  // most its escaped path (6 bytes a byte) and 200 bytes of fields.
  size_t group = 256 + size_t(s->depth) * 21;
  return 768 + (kBacktraceRecordGroups + 2 * kBacktraceLeakGroups) * group +
         kBacktraceMaxModules * 200 + 6 * (kBacktracePathPool + kPathCapacity);
}

}  // namespace account
