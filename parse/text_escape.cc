#include "text_escape.h"

#include <fmt/format.h>

namespace account {

std::string escape_control(std::string_view text) {
  auto is_control = [](unsigned char c) { return c < 0x20 || c == 0x7f; };
  bool any = false;
  for (char c : text) any = any || is_control(static_cast<unsigned char>(c));
  if (!any) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (is_control(static_cast<unsigned char>(c)))
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        else
          out += c;
    }
  }
  return out;
}

}  // namespace account
