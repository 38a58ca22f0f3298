/// Helpers shared by the robustness tests.
#pragma once

#include <string>
#include <vector>

#include "shim_run.h"

namespace account::testing {

/// Path of a program built in tests/robustness/programs.
inline std::string robustness_program(const std::string& name) {
  return std::string(ROBUSTNESS_PROGRAMS_DIR) + "/" + name;
}

/// Every integer following "key=" in text, in order.
inline std::vector<long long> values_after(const std::string& text, const std::string& key) {
  std::vector<long long> out;
  std::string needle = key + "=";
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    if (at > 0 && text[at - 1] != ' ' && text[at - 1] != '\n') continue;
    out.push_back(std::stoll(text.substr(at + needle.size())));
  }
  return out;
}

}  // namespace account::testing
