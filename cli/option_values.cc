#include "option_values.h"

#include <fmt/format.h>
#include <signal.h>
#include <string.h>
#include <strings.h>

#include <algorithm>
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

namespace {
int signal_number(const std::string& text) {
  uint64_t n;
  if (parse_bounded(text.c_str(), 1, 64, &n)) return int(n);
  const char* name = text.c_str();
  if (strncasecmp(name, "SIG", 3) == 0) name += 3;
  for (int s = 1; s < 65; ++s) {
    const char* abbrev = sigabbrev_np(s);
    if (abbrev && strcasecmp(abbrev, name) == 0) return s;
  }
  return 0;
}
}  // namespace

std::vector<int> signals_option(const char* command, const char* option,
                                const std::vector<std::string>& texts) {
  std::vector<int> out;
  for (const std::string& text : texts) {
    if (strcasecmp(text.c_str(), "none") == 0) {
      if (texts.size() > 1)
        throw UsageError{fmt::format("{}: {} none cannot go with other signals", command, option)};
      continue;
    }
    int s = signal_number(text);
    if (s == 0)
      throw UsageError{
          fmt::format("{}: {} {} is not a signal (a name such as TERM or a number 1-64)", command,
                      option, text)};
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  }
  return out;
}

}  // namespace account
