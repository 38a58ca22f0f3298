// libFuzzer target for ACCOUNT_* value parsing: parse_size, parse_bounded and
// parse_flag never crash, never read past the terminating NUL, and what they
// accept is what the documentation says.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "values.h"

namespace {

void check(bool condition) {
  if (!condition) abort();
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // Two bytes pick the bounds of parse_bounded; the rest is the text, cut at
  // the first NUL as a C string would be (a heap copy so ASan sees overreads).
  uint64_t min = data[0] % 50, max = min + data[1] * 1000ull;
  std::string text(reinterpret_cast<const char*>(data + 2), size - 2);
  text = text.c_str();
  char* c_text = static_cast<char*>(malloc(text.size() + 1));
  memcpy(c_text, text.c_str(), text.size() + 1);

  uint64_t v = 0;
  if (account::parse_size(c_text, &v)) {
    check(!text.empty() && text[0] >= '0' && text[0] <= '9');
    if (all_digits(text)) check(v == strtoull(text.c_str(), nullptr, 10));
  } else if (all_digits(text) && text.size() < 19) {
    check(false);  // a plain byte count that fits is always a size
  }

  uint64_t b = 0;
  if (account::parse_bounded(c_text, min, max, &b)) {
    check(all_digits(text));
    check(b >= min && b <= max);
    check(b == strtoull(text.c_str(), nullptr, 10));
  } else if (all_digits(text) && text.size() < 19) {
    uint64_t n = strtoull(text.c_str(), nullptr, 10);
    check(n < min || n > max);
  }

  bool flag = false;
  if (account::parse_flag(c_text, &flag)) check(text.size() >= 1 && text.size() <= 5);
  free(c_text);
  return 0;
}
