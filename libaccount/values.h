/// Parsing of ACCOUNT_* values: sizes with binary suffixes, bounded integers.
/// Pure functions, no allocation; shared by the shim and the CLI.
#pragma once

#include <stdint.h>

namespace account {

/// "4096", "64K", "10M", "2G" (binary multiples; an optional trailing 'B' or "iB"
/// is accepted: "10MiB"). False on anything else, including overflow.
bool parse_size(const char* text, uint64_t* out);

/// A decimal integer in [min, max], nothing else.
bool parse_bounded(const char* text, uint64_t min, uint64_t max, uint64_t* out);

/// "0" or "1" (also "no"/"yes", "false"/"true", "off"/"on").
bool parse_flag(const char* text, bool* out);

}  // namespace account
