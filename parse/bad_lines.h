/// The bad-line messages of one command: the first kShown named one a line,
/// the rest counted in one closing line.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "reader.h"

namespace account {

class BadLineMessages {
 public:
  static constexpr uint64_t kShown = 20;

  explicit BadLineMessages(std::function<void(const std::string&)> sink) : sink_(std::move(sink)) {}
  /// Names the line, or counts it once kShown lines were named.
  void add(const BadLine& bad);
  /// "account: N more bad lines not shown", when some were not named.
  void finish();

 private:
  std::function<void(const std::string&)> sink_;
  uint64_t shown_ = 0, hidden_ = 0;
};

}  // namespace account
