/// The wall clock as records keep it: nanoseconds since the epoch.
#pragma once

#include <chrono>
#include <cstdint>

namespace account {

inline uint64_t realtime_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count());
}

}  // namespace account
