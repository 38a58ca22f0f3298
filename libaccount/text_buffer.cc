#include "text_buffer.h"

namespace account {

size_t string_length(const char* s) {
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}

void TextBuffer::put(char c) {
  if (len_ < cap_)
    buf_[len_++] = c;
  else
    overflow_ = true;
}

void TextBuffer::put(const char* s, size_t n) {
  for (size_t i = 0; i < n; ++i) put(s[i]);
}

void TextBuffer::put(const char* s) {
  put(s, string_length(s));
}

void TextBuffer::put_uint(uint64_t v) {
  char digits[20];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) put(digits[--n]);
}

void TextBuffer::put_int(int64_t v) {
  if (v < 0) {
    put('-');
    put_uint(static_cast<uint64_t>(-(v + 1)) + 1);
  } else {
    put_uint(static_cast<uint64_t>(v));
  }
}

void TextBuffer::put_fixed(uint64_t v, int decimals) {
  uint64_t scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  put_uint(v / scale);
  if (decimals == 0) return;
  put('.');
  uint64_t frac = v % scale;
  for (uint64_t div = scale / 10; div > 0; div /= 10)
    put(static_cast<char>('0' + (frac / div) % 10));
}

namespace {

// Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid.
size_t utf8_sequence(const unsigned char* s, size_t n) {
  unsigned char c = s[0];
  size_t len;
  uint32_t min;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, min = 0x80;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, min = 0x800;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, min = 0x10000;
  } else {
    return 0;
  }
  if (n < len) return 0;
  uint32_t cp = c & (0x3F >> (len - 1));
  for (size_t i = 1; i < len; ++i) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

void TextBuffer::put_json_string(const char* str, size_t n) {
  static const char kHex[] = "0123456789abcdef";
  const unsigned char* s = reinterpret_cast<const unsigned char*>(str);
  put('"');
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c == '"' || c == '\\') {
      put('\\'), put(static_cast<char>(c)), ++i;
    } else if (c == '\n') {
      put("\\n"), ++i;
    } else if (c == '\t') {
      put("\\t"), ++i;
    } else if (c < 0x20 || c == 0x7F) {
      put("\\u00"), put(kHex[c >> 4]), put(kHex[c & 15]), ++i;
    } else {
      size_t len = utf8_sequence(s + i, n - i);
      if (len == 0) {
        put("\xEF\xBF\xBD"), ++i;  // U+FFFD
      } else {
        put(str + i, len), i += len;
      }
    }
  }
  put('"');
}

void TextBuffer::put_json_string(const char* s) {
  put_json_string(s, string_length(s));
}

void TextBuffer::key(const char* name) {
  if (!first_) put(',');
  first_ = false;
  put('"'), put(name), put("\":");
}

}  // namespace account
