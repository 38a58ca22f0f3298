/// Large-allocation backtraces (ACCOUNT_BACKTRACE_MIN): what the interposers and
/// the lifecycle see. The hot path pays nothing: while backtraces are on, the
/// malloc family takes its out-of-line path (kDetourHeap), which compares the
/// request against g_backtrace_min (UINT64_MAX, never true, while off).
#pragma once

#include <stdint.h>

#include "atomics.h"
#include "live_blocks.h"

namespace account {

/// Smallest request that is captured; UINT64_MAX while off.
extern uint64_t g_backtrace_min;

/// Out of line and never inlined, so the interposers stay small: captures the
/// caller's stack and adds it to this image's groups (and the log, if any).
__attribute__((noinline, cold)) void capture_large_allocation(uint64_t requested, void* block);

/// Points the malloc family at its out-of-line path while it must be there: the
/// allocator is not glibc's, the usable size needs a call (the header check
/// failed), a bootstrap block is out, or backtraces are on.
void update_heap_detour();

/// The compare on the malloc family's out-of-line path; `block` is what the
/// call returned (NULL if it failed).
inline void maybe_capture(uint64_t requested, void* block) {
  if (ACCOUNT_UNLIKELY(requested >= g_backtrace_min)) capture_large_allocation(requested, block);
}

/// ACCOUNT_BACKTRACE_LEAKS (live_blocks.h): a captured block taken off the
/// table before the allocator sees its free or realloc.
struct TakenBlock {
  bool taken = false;
  uint64_t requested = 0;
  int32_t group = 0;
};
__attribute__((noinline, cold)) TakenBlock take_captured_block(void* block);
/// The block `taken` was freed (by free, or by realloc moving or freeing it):
/// off its group, and a temporary of it if it was the thread's newest block.
__attribute__((noinline, cold)) void forget_captured_block(const TakenBlock& taken, void* block);
/// realloc(ptr, size) returned `result`: what became of the block it took.
void settle_realloc(const TakenBlock& taken, void* ptr, void* result, uint64_t size);

/// free's part, on the malloc family's out-of-line path.
inline void maybe_forget(void* block) {
  if (ACCOUNT_UNLIKELY(g_live_blocks_on) && block) {
    TakenBlock taken = take_captured_block(block);
    if (taken.taken) forget_captured_block(taken, block);
  }
}

/// At start-up, after load_settings() and before the sampler starts (it must
/// inherit the shared groups): loads the unwinder and maps the groups when
/// ACCOUNT_BACKTRACE_MIN is set. Warns once and stays off if that fails.
void start_backtraces();
/// In a fork child, before its sampler starts: fresh, empty groups of its own.
void restart_backtraces_after_fork();
/// In the sampler process: never capture (its memory is a copy of the target's).
void stop_backtraces_in_this_process();

/// 1 while the calling thread is capturing: allocations made by the unwinder are
/// counted but not captured, and libunwind gets no descriptors (see pipe2).
extern __thread int tls_capturing __attribute__((tls_model("initial-exec")));

}  // namespace account
