/// Large-allocation backtraces (ACCOUNT_BACKTRACE_MIN): what the interposers and
/// the lifecycle see. The hot path pays nothing: while backtraces are on, the
/// malloc family takes its out-of-line path (kDetourHeap), which compares the
/// request against g_backtrace_min (UINT64_MAX, never true, while off).
#pragma once

#include <stdint.h>

#include "atomics.h"

namespace account {

/// Smallest request that is captured; UINT64_MAX while off.
extern uint64_t g_backtrace_min;

/// Out of line and never inlined, so the interposers stay small: captures the
/// caller's stack and adds it to this image's groups (and the log, if any).
__attribute__((noinline, cold)) void capture_large_allocation(uint64_t requested);

/// Points the malloc family at its out-of-line path while it must be there: the
/// allocator is not glibc's, the usable size needs a call (the header check
/// failed), a bootstrap block is out, or backtraces are on.
void update_heap_detour();

/// The compare on the malloc family's out-of-line path.
inline void maybe_capture(uint64_t requested) {
  if (ACCOUNT_UNLIKELY(requested >= g_backtrace_min)) capture_large_allocation(requested);
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
