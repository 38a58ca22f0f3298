/// Sums of counts and byte figures: they stop at the largest uint64_t rather
/// than wrap round to a small number (records are untrusted input).
#pragma once

#include <cstdint>
#include <limits>

namespace account {

constexpr uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<uint64_t>::max() : sum;
}

/// sum += x, saturating.
constexpr void add_saturating(uint64_t& sum, uint64_t x) {
  sum = saturating_add(sum, x);
}

}  // namespace account
