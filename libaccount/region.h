/// The counters shared between a target process and its sampler.
///
/// One Region per process image, in a MAP_SHARED anonymous mapping created by the
/// shim. Each thread owns one Slot and is its only writer, so the hot path needs no
/// lock and no read-modify-write; the sampler (a separate process holding the same
/// mapping) reads the slots live and can still write the record of a target that
/// died without running any code.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "sampling.h"

namespace account {

constexpr uint32_t kRegionMagic = 0x41434354;  // "ACCT"
constexpr int kSlotCount = 1024;
/// Slot 0 is shared by threads that find no free slot (or run after their slot
/// was released); its updates are atomic read-modify-writes.
constexpr int kSharedSlot = 0;
/// Net heap changes are published to the shared total once a thread's pending
/// change reaches this size, so the total's cache line stays mostly read-only.
constexpr int64_t kHeapPublishBytes = 256 * 1024;

/// Slot::detour bits: while any is set, calls take the out-of-line path.
constexpr uint32_t kDetourAll = 1;   // the shared slot, or a thread not yet holding a slot
constexpr uint32_t kDetourHeap = 2;  // malloc family only: usable sizes need a call, or
                                     /// large allocations are backtraced

struct alignas(128) Slot {
  uint64_t malloc_calls;
  uint64_t malloc_bytes;
  uint64_t free_calls;
  uint64_t copied_calls;
  uint64_t copied_bytes;
  uint64_t realloc_copied_bytes;
  /// Copies glibc makes inside itself (libc_copies.h), not in copied_*: the
  /// totals add the two.
  uint64_t libc_copied_calls;
  uint64_t libc_copied_bytes;
  /// Net usable bytes allocated by this slot's threads and not yet published to
  /// Region::heap_published (batched to keep the shared line cold), stored as
  /// kHeapPublishBytes + pending: the bytes it may still shrink before it must be
  /// published, so a free tests the sign of one subtraction.
  int64_t heap_shrink_room;
  /// Bytes the slot may still grow before it must look at the heap again: a new
  /// peak is possible, or pending reached kHeapPublishBytes (see heap_sync).
  int64_t heap_grow_room;
  /// Highest live-heap figure this slot's threads observed since the slot last
  /// met Region::peak_epoch (account_peak_reset(ACCOUNT_PROCESS) starts a new one).
  int64_t heap_peak;
  /// The largest single request since the owning thread started or reset it.
  int64_t largest_request;
  /// Calls in malloc_calls that left no new block (a failed call, a realloc
  /// of a block; realloc(p, 0) freeing counts 2) less the free_calls that
  /// freed none (free(NULL)): live blocks are malloc_calls - free_calls - this.
  /// Written on rare paths only, and by realloc.
  int64_t block_adjust;
  /// Blocks freed by their thread before its next allocation (heaptrack's
  /// temporaries), and the bytes they asked for.
  uint64_t temporary_allocs;
  uint64_t temporary_bytes;
  uint8_t owned;        // 1 while a thread owns the slot
  uint8_t shared;       // 1 for the overflow slot: updates must be atomic RMW
  uint16_t detour;      // kDetour* bits
  uint32_t peak_epoch;  // the Region::peak_epoch heap_peak belongs to
};
static_assert(sizeof(Slot) == 128, "a slot is two cache lines: a third is a cost on every thread");

enum ImageState : uint32_t {
  kRunning = 0,
  kExecPending = 1,  // the image wrote its exec record and is calling exec
  kRecorded = 2,     // the record is written; no one else may write it
  kWriting = 3,      // the image is writing its record (composed before the claim);
                     /// if it dies now, a sampler checks the output for it
  /// The image ended and could not write its record (the output refused it:
  /// a process that dropped root cannot open root's file). Its final figures
  /// and ending are in Region::handover: the run's tree sampler writes it.
  kHandedOver = 4,
};

/// True once the image's record is written (by anyone).
inline bool image_recorded(uint32_t state) {
  return state == kRecorded || state == kExecPending;
}

/// Room for an image's packed identity and settings (PackedInfo, image_file.h)
/// on the Region's first page, beside the counters a single-threaded program
/// touches: a usual image then writes one page of its file, not two.
constexpr size_t kInlineInfoBytes = 1920;
/// Room for an image's final figures and ending (FinalFigures and Ending,
/// record_writer.cc checks they fit) when it hands its record over.
constexpr size_t kHandoverBytes = 512;

struct Region {
  uint32_t magic;
  uint32_t image_state;
  int64_t heap_published;
  uint32_t slot_limit;     // slots [0, slot_limit) have ever been claimed
  uint32_t timeline_busy;  // 1 while the sampler adds a timeline point
  /// Written by the sampler, read by the target when it writes its own record.
  int32_t sampler_pid;
  uint32_t sampler_alive;
  /// The image's pid and its parent's as account run's tree sampler knows
  /// them, written by it (run_pid last) for an image in a pid namespace below
  /// the run's with a /proc of its own, where the image knows only that
  /// namespace's: its record names it by them. 0: as the image knows them.
  int32_t run_pid;
  int32_t run_ppid;
  SampledPeaks sampled;
  uint64_t sampler_cpu_ns;
  /// Where the image's other shared parts are in its image file (image_file.h);
  /// 0 when absent or when the parts are anonymous mappings. info_offset is
  /// set as the identity is published (Region::inline_info or kInfoOffset).
  uint64_t info_offset;
  uint64_t timeline_offset;
  uint64_t backtrace_offset;
  uint32_t malloc_found;    // MallocFound (next_allocator.h)
  uint32_t info_published;  // 1 once the image file holds the ImageInfo
  uint32_t libc_copies;     // LibcCopies (libc_copies.h): how libc's own copies are counted
  /// The errno of the image's own failed record write (0: written, or not yet):
  /// set before image_state says kRecorded, so a tree sampler that sees the
  /// record done also sees whether it was lost (account run counts the losses).
  uint32_t record_write_error;
  /// How an image in a sandbox ended (entered_sandbox, lifecycle.h), which
  /// writes no record: its raw wait status, then sandbox_end_left = 1. For the
  /// sampler that writes its record when the zombie was reaped before it looked.
  int32_t sandbox_end_status;
  uint32_t sandbox_end_left;
  /// account_peak_reset(ACCOUNT_PROCESS): a new epoch; a slot whose heap_peak is
  /// of an older one lowers it at its next heap_sync. The lifetime peak (the
  /// record's) keeps what the reset lowered in heap_peak_before_reset, and the
  /// window's peak starts at heap_live_at_reset.
  uint32_t peak_epoch;
  int64_t heap_peak_before_reset;
  int64_t heap_live_at_reset;
  /// A fork child's: the live heap and blocks of its parent at the fork, which
  /// the child holds too (its own counting starts at zero).
  int64_t heap_inherited_bytes;
  int64_t heap_inherited_blocks;
  alignas(8) char inline_info[kInlineInfoBytes];  // info_offset says if in use
  Slot slots[kSlotCount];
  /// Set before image_state says kHandedOver; after the slots, off the pages
  /// a start touches.
  alignas(8) unsigned char handover[kHandoverBytes];
};

/// Sums of all slots at one moment (each field read with a relaxed load).
struct Totals {
  uint64_t malloc_calls = 0;
  uint64_t malloc_bytes = 0;
  uint64_t free_calls = 0;
  uint64_t copied_calls = 0;
  uint64_t copied_bytes = 0;
  uint64_t realloc_copied_bytes = 0;
  uint64_t libc_copied_calls = 0;  // included in copied_calls
  uint64_t libc_copied_bytes = 0;  // included in copied_bytes
  int64_t heap_peak_bytes = 0;
  /// Live now: usable bytes (as the heap peak counts them) and blocks,
  /// inherited ones included (Region::heap_inherited_*).
  int64_t heap_live_bytes = 0;
  int64_t heap_live_blocks = 0;
  uint64_t temporary_allocs = 0;
  uint64_t temporary_bytes = 0;
};

/// Marks a zeroed Region ready: slot 0 is the shared overflow slot.
void init_region(Region* r);

/// Only slots ever claimed are read (Region::slot_limit): the rest are zero, and
/// reading a page of a shared mapping allocates it.
Totals sum_slots(const Region* region);

}  // namespace account
