/// The groups of large-allocation backtraces of one process image, in a
/// MAP_SHARED mapping (so the sampler can still write them for a killed target).
///
/// Groups live in an open-addressing hash table keyed by a hash of the stack:
/// a new stack claims an entry with one compare-and-swap, writes its frames and
/// publishes them; a known stack costs a probe, a compare of its frames and three
/// atomic adds. No lock anywhere: threads capture concurrently. When the table is
/// three quarters full, further new stacks are only summed ("other").
///
/// Modules (executable and shared objects) are registered when a new group
/// references an address outside every known one, so the record can name each
/// frame as module + offset after the process is gone.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "text_buffer.h"

namespace account {

constexpr uint32_t kBacktraceMaxDepth = 256;
constexpr uint32_t kBacktraceRecordGroups = 256;  // the record keeps the largest by bytes
/// With leaks on, also up to this many by live bytes and by temporaries.
constexpr uint32_t kBacktraceLeakGroups = 128;
constexpr uint32_t kBacktraceMaxModules = 512;
constexpr uint32_t kBacktracePathPool = 64 * 1024;
constexpr uint32_t kBuildIdMax = 32;

struct BacktraceGroup {
  uint64_t hash;   // 0: free; claimed with a CAS
  uint32_t ready;  // 1 once depth and frames are written (release)
  uint32_t depth;
  uint64_t count;
  uint64_t bytes;
  uint64_t largest;
  /// With leaks on (BacktraceStore::leaks): the group's blocks still live,
  /// and those freed as temporaries (counters.h, note_temporary); requests.
  int64_t live_count;
  int64_t live_bytes;
  uint64_t temporary_count;
  uint64_t temporary_bytes;
};

struct BacktraceModule {
  uint32_t ready;  // 1 once the entry is written (release)
  uint32_t path_offset;
  uint32_t path_len;
  uint32_t build_id_len;
  uint64_t base;   // load bias: file address = ip - base
  uint64_t start;  // lowest and highest+1 address of its PT_LOAD segments
  uint64_t end;
  uint8_t build_id[kBuildIdMax];
};

struct BacktraceStore {
  uint32_t depth;     // frames kept per group
  uint32_t capacity;  // entries, a power of two
  uint32_t limit;     // at most this many groups are claimed
  uint32_t used;      // groups claimed so far
  uint64_t threshold;
  /// ACCOUNT_BACKTRACE_SAMPLE: one capture about every this many bytes
  /// allocated (0: every allocation of at least `threshold`).
  uint64_t sample_bytes;
  /// Allocations whose stack found no room: summed, not grouped.
  uint64_t other_count;
  uint64_t other_bytes;
  uint64_t other_largest;
  uint64_t other_stacks;  // how many new stacks were turned away
  /// ACCOUNT_BACKTRACE_LEAKS: 1 while captured blocks are followed to their
  /// free (live_blocks.h); the "other" allocations' live and temporary
  /// figures; captured blocks the live-block table had no room for.
  uint32_t leaks;
  uint32_t leaks_reserved;
  int64_t other_live_count;
  int64_t other_live_bytes;
  uint64_t other_temporary_count;
  uint64_t other_temporary_bytes;
  uint64_t untracked_blocks;
  uint32_t module_count;  // entries reserved (each becomes ready)
  uint32_t path_used;
  BacktraceModule modules[kBacktraceMaxModules];
  char paths[kBacktracePathPool];
  /// Followed by BacktraceGroup groups[capacity] and uintptr_t frames[capacity * depth].
};

/// What one shared object covers, from dl_iterate_phdr.
struct ModuleInfo {
  const char* path;  // "" for the main program (the caller names it)
  uint64_t base;
  uint64_t start;
  uint64_t end;
  uint8_t build_id[kBuildIdMax];
  uint32_t build_id_len;
};

/// Finds the loaded object containing `ip`. Takes the loader's lock briefly; no
/// allocation.
bool module_containing(uintptr_t ip, ModuleInfo* out);

extern BacktraceStore* g_backtrace_store;

/// Bytes a store with these dimensions maps.
size_t backtrace_mapping_size(uint32_t capacity, uint32_t depth);

/// Maps an empty store (replacing, in this process only, any inherited one).
bool create_backtrace_store(uint32_t depth, uint64_t threshold, uint64_t sample_bytes);

constexpr int32_t kNoGroup = -1;
/// What one capture adds to its group: allocations and bytes (estimates that
/// stand for the unsampled ones too, with ACCOUNT_BACKTRACE_SAMPLE), and the
/// request itself (for `largest`).
struct CaptureWeight {
  uint64_t count = 1;
  uint64_t bytes = 0;
  uint64_t requested = 0;
};

/// Adds one capture whose stack is ips[0..n); returns its group's index, or
/// kNoGroup when it was only summed ("other": no room for its stack).
int32_t backtrace_store_add(BacktraceStore* s, const uintptr_t* ips, uint32_t n,
                            const CaptureWeight& w);
/// Leaks on: a captured block of `requested` bytes in group `index` (kNoGroup:
/// "other") is live (+1) or gone (-1).
void backtrace_group_live(BacktraceStore* s, int32_t index, uint64_t requested, int sign);
/// Leaks on: that block was freed as a temporary.
void backtrace_group_temporary(BacktraceStore* s, int32_t index, uint64_t requested);
/// Copies up to `max` frames of group `index` (innermost first); returns how many.
uint32_t backtrace_group_frames(const BacktraceStore* s, int32_t index, uintptr_t* out,
                                uint32_t max);

/// "backtrace_min", "backtrace_depth", "backtraces":[...], "backtraces_other"
/// and "backtrace_modules":[...] into a record; `exe` names the main program
/// (the image's, also when a sampler composes the record).
/// `at_exit`: the image ended (not exec), so its groups' live blocks are its
/// leaks and are written (leaks on).
void compose_backtraces(TextBuffer& out, const BacktraceStore* s, const char* exe, bool at_exit);
/// A private copy of another process's store (its capacity and depth the ones
/// checked against its mapping) made safe to compose: every group's depth and
/// module's path and build id within their arrays.
void pin_backtrace_copy(BacktraceStore* copy, uint32_t capacity, uint32_t depth);
/// The most compose_backtraces can write.
size_t backtrace_record_capacity(const BacktraceStore* s);

/// "0x" and lower-case hex digits.
void put_hex(TextBuffer& out, uint64_t v);
/// The same in quotes: a JSON string.
void put_hex_string(TextBuffer& out, uint64_t v);

}  // namespace account
