/// Option values checked before any work starts: each bad value is one line
/// (a UsageError) naming the command, the option, the value and the valid
/// range. Values are taken as text, so a negative number is never wrapped
/// into a large unsigned one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace account {

/// A decimal integer in [min, max]; `unit` follows the range in the message
/// ("run: --interval -5 is not 0-1000 ms").
uint64_t count_option(const char* command, const char* option, const std::string& text,
                      uint64_t min, uint64_t max, const char* unit = "");

/// A decimal number of seconds in [min, max] ("run: --timeout 0 is not 0.001-1000000 s").
double seconds_option(const char* command, const char* option, const std::string& text, double min,
                      double max);

/// A size of at least one byte: "4096", "64K", "10M", "1G" (values.h parse_size).
uint64_t size_option(const char* command, const char* option, const std::string& text);

/// --stop-signal values: each a signal name ("TERM", "SIGTERM", any case) or
/// number (1-64), or "none" alone (no stop signal). Duplicates are dropped.
std::vector<int> signals_option(const char* command, const char* option,
                                const std::vector<std::string>& texts);

}  // namespace account
