/// The clocks, one definition for the shim, the samplers and the tools: the
/// wall clock as records keep it (nanoseconds since the epoch) and the
/// monotonic clock the samplers tick on. Raw system calls: async-signal-safe,
/// and no libc code, so the shim may read them anywhere.
#pragma once

#include <stdint.h>
#include <time.h>

#include "raw_syscall.h"

namespace account {

inline uint64_t realtime_ns() { return raw_clock_ns(CLOCK_REALTIME); }
inline uint64_t monotonic_ns() { return raw_clock_ns(CLOCK_MONOTONIC); }

}  // namespace account
