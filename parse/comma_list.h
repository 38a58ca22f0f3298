/// The items of an option's comma-separated list ("cpu=5%,wall=10%"): every
/// item, empty ones included, so that the caller can name a bad one.
#pragma once

#include <string_view>
#include <vector>

namespace account {

inline std::vector<std::string_view> comma_list(std::string_view text) {
  std::vector<std::string_view> items;
  for (size_t at = 0;;) {
    size_t comma = text.find(',', at);
    items.push_back(text.substr(at, comma == std::string_view::npos ? comma : comma - at));
    if (comma == std::string_view::npos) return items;
    at = comma + 1;
  }
}

}  // namespace account
