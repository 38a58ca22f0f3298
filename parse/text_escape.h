/// Text from records (argv, labels, paths) shown to people: control characters
/// written as C escapes, so a row or a message stays one line and no terminal
/// sequence (ESC, CR) written by a recorded program reaches the terminal.
#pragma once

#include <string>
#include <string_view>

namespace account {

/// `\n`, `\t`, `\r`; other bytes below 0x20 and 0x7f
/// as `\xHH`; everything else (UTF-8 included) as it is. A backslash stays
/// one backslash: the escapes are for reading, not for parsing back.
std::string escape_control(std::string_view text);

}  // namespace account
