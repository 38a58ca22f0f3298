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

namespace {

// LD_PRELOAD's entries, split at ':' and ' ' as ld.so splits them.
std::vector<std::string_view> preload_entries(const char* preload) {
  std::vector<std::string_view> entries;
  std::string_view rest = preload ? preload : "";
  while (!rest.empty()) {
    size_t end = rest.find_first_of(": ");
    std::string_view entry = rest.substr(0, end);
    if (!entry.empty()) entries.push_back(entry);
    rest = end == std::string_view::npos ? "" : rest.substr(end + 1);
  }
  return entries;
}

void append_entry(std::string* out, std::string_view entry) {
  if (!out->empty()) *out += ':';
  *out += entry;
}

}  // namespace

std::string preload_with_shim(const std::string& shim, const char* preload) {
  std::vector<std::string_view> entries = preload_entries(preload);
  std::string out;
  size_t i = 0;
  for (; i < entries.size() && is_sanitizer_runtime(entries[i]); ++i)
    append_entry(&out, entries[i]);
  append_entry(&out, shim);
  for (; i < entries.size(); ++i) append_entry(&out, entries[i]);
  return out;
}

std::string preload_without_shim(const std::string& shim, const char* preload) {
  std::string out;
  for (std::string_view entry : preload_entries(preload))
    if (entry != shim) append_entry(&out, entry);
  return out;
}

}  // namespace account
