#include "shim_preload.h"

#include <vector>

namespace account {

bool is_sanitizer_runtime(std::string_view entry) {
  std::string_view name = entry.substr(entry.rfind('/') + 1);  // npos + 1 == 0
  for (std::string_view prefix :
       {"libasan.so", "libhwasan.so", "libtsan.so", "liblsan.so", "libubsan.so", "libclang_rt."})
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

std::string preload_with_shim(const std::string& shim, const char* preload) {
  std::vector<std::string_view> entries;
  std::string_view rest = preload ? preload : "";
  while (!rest.empty()) {
    size_t end = rest.find_first_of(": ");
    std::string_view entry = rest.substr(0, end);
    if (!entry.empty()) entries.push_back(entry);
    rest = end == std::string_view::npos ? "" : rest.substr(end + 1);
  }
  std::string out;
  auto append = [&out](std::string_view entry) {
    if (!out.empty()) out += ':';
    out += entry;
  };
  size_t i = 0;
  for (; i < entries.size() && is_sanitizer_runtime(entries[i]); ++i) append(entries[i]);
  append(shim);
  for (; i < entries.size(); ++i) append(entries[i]);
  return out;
}

}  // namespace account
