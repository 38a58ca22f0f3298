#include "option_values.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "commands.h"
#include "values.h"

namespace account {

uint64_t count_option(const char* command, const char* option, const std::string& text,
                      uint64_t min, uint64_t max, const char* unit) {
  uint64_t n;
  if (!parse_bounded(text.c_str(), min, max, &n))
    throw UsageError{fmt::format("{}: {} {} is not {}-{}{}{}", command, option, text, min, max,
                                 *unit ? " " : "", unit)};
  return n;
}

double seconds_option(const char* command, const char* option, const std::string& text, double min,
                      double max) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(begin, &end);
  // Plain decimals only: no hexadecimal, no "inf" or "nan", nothing after the number.
  bool decimal = !text.empty() && text.find_first_not_of("0123456789.+-eE") == std::string::npos;
  if (!decimal || end != begin + text.size() || errno != 0 || !std::isfinite(v) || v < min ||
      v > max)
    throw UsageError{fmt::format("{}: {} {} is not {}-{} s", command, option, text, min, max)};
  return v;
}

uint64_t size_option(const char* command, const char* option, const std::string& text) {
  uint64_t n;
  if (!parse_size(text.c_str(), &n) || n == 0)
    throw UsageError{
        fmt::format("{}: {} {} is not a size of 1 byte or more, such as 4096, 64K, 10M or 1G",
                    command, option, text)};
  return n;
}

}  // namespace account
