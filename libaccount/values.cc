#include "values.h"

namespace account {

namespace {

bool parse_digits(const char*& p, uint64_t* out) {
  if (*p < '0' || *p > '9') return false;
  uint64_t v = 0;
  while (*p >= '0' && *p <= '9') {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, uint64_t(*p - '0'), &v))
      return false;
    ++p;
  }
  *out = v;
  return true;
}

bool same_word(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b) {
    char c = *a;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != *b) return false;
  }
  return *a == 0 && *b == 0;
}

}  // namespace

bool parse_size(const char* text, uint64_t* out) {
  if (!text) return false;
  const char* p = text;
  uint64_t v;
  if (!parse_digits(p, &v)) return false;
  int shift = 0;
  switch (*p) {
    case 'k':
    case 'K':
      shift = 10, ++p;
      break;
    case 'm':
    case 'M':
      shift = 20, ++p;
      break;
    case 'g':
    case 'G':
      shift = 30, ++p;
      break;
    case 't':
    case 'T':
      shift = 40, ++p;
      break;
    default:
      break;
  }
  if (shift && *p == 'i') ++p;
  if (*p == 'B' || *p == 'b') ++p;
  if (*p) return false;
  if (shift && v > (UINT64_MAX >> shift)) return false;
  *out = v << shift;
  return true;
}

bool parse_bounded(const char* text, uint64_t min, uint64_t max, uint64_t* out) {
  if (!text) return false;
  const char* p = text;
  uint64_t v;
  if (!parse_digits(p, &v) || *p || v < min || v > max) return false;
  *out = v;
  return true;
}

bool parse_flag(const char* text, bool* out) {
  if (!text) return false;
  static const char* const kTrue[] = {"1", "yes", "true", "on"};
  static const char* const kFalse[] = {"0", "no", "false", "off"};
  for (const char* w : kTrue)
    if (same_word(text, w)) return *out = true, true;
  for (const char* w : kFalse)
    if (same_word(text, w)) return *out = false, true;
  return false;
}

}  // namespace account
