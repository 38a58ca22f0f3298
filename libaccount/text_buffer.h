/// A bounded text builder for records and messages: no allocation, no locale, no
/// stdio, safe in a fork child and after a fatal signal. Output past the capacity
/// is dropped and remembered (overflowed()).
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace account {

class TextBuffer {
 public:
  TextBuffer(char* storage, size_t capacity) : buf_(storage), cap_(capacity) {}

  void put(char c);
  void put(const char* s);
  void put(const char* s, size_t n);
  void put_uint(uint64_t v);
  void put_int(int64_t v);
  /// v / 10^decimals printed with exactly `decimals` digits after the point.
  void put_fixed(uint64_t v, int decimals);
  /// A JSON string literal: quotes, escapes, invalid UTF-8 replaced by U+FFFD.
  void put_json_string(const char* s, size_t n);
  void put_json_string(const char* s);

  /// "key": helpers for records (a comma is written before every key but the first).
  void key(const char* name);
  void field(const char* name, uint64_t v) { key(name), put_uint(v); }
  void field_int(const char* name, int64_t v) { key(name), put_int(v); }
  void field_fixed(const char* name, uint64_t v, int decimals) {
    key(name), put_fixed(v, decimals);
  }
  void field_string(const char* name, const char* s) { key(name), put_json_string(s); }
  void begin_object() { put('{'), first_ = true; }
  void end_object() { put('}'), first_ = false; }  // the enclosing object goes on

  const char* data() const { return buf_; }
  size_t size() const { return len_; }
  bool overflowed() const { return overflow_; }
  void clear() { len_ = 0, overflow_ = false, first_ = true; }

 private:
  char* buf_;
  size_t cap_;
  size_t len_ = 0;
  bool overflow_ = false;
  bool first_ = true;
};

size_t string_length(const char* s);

}  // namespace account
