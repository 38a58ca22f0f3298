#include "change_warning.h"

#include <fmt/format.h>

namespace account {

void ChangeWarning::report(const std::string& reason) {
  if (reason != last_ && !reason.empty()) fmt::print(stderr, "{}: {}\n", what_, reason);
  last_ = reason;
}

}  // namespace account
