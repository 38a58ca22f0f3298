#include "bad_lines.h"

#include <fmt/format.h>

namespace account {

void BadLineMessages::add(const BadLine& bad) {
  if (shown_ < kShown) {
    ++shown_;
    sink_(bad.message());
  } else {
    ++hidden_;
  }
}

void BadLineMessages::finish() {
  if (hidden_ > 0)
    sink_(fmt::format("account: {} more bad line{} not shown", hidden_, hidden_ == 1 ? "" : "s"));
  hidden_ = 0;
}

}  // namespace account
