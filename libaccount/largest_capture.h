/// Where a thread's largest request came from, for the in-test API
/// (account_largest_malloc_stack): the capture notes each captured request's
/// group, and the largest of the thread's window is kept in its TLS.
#pragma once

#include <stdint.h>

#include "backtrace_store.h"

namespace account {

/// A captured request of `requested` bytes whose stack is `group` of `store`
/// (kNoGroup: summed as "other").
void note_capture(const BacktraceStore* store, uint64_t requested, int32_t group);

/// A new window (the API's peak reset, the thread's snapshot base).
void forget_largest_capture();

/// The stack of the calling thread's request of `largest_request` bytes, if it
/// is the largest captured of the window: up to `max` frames, innermost first;
/// 0 when that request was not captured.
uint32_t largest_capture_frames(uint64_t largest_request, uintptr_t* out, uint32_t max);

}  // namespace account
