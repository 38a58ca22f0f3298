#include "stack_path.h"

#include <fmt/format.h>

namespace account {

namespace {

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string folded_clean(std::string text) {
  for (char& c : text)
    if (c == ';')
      c = ':';
    else if (static_cast<unsigned char>(c) < 0x20)
      c = ' ';
  return text;
}

std::string program_name(const ProcessBacktraces& p) {
  std::string program = basename_of(p.exe.empty() && !p.argv.empty() ? p.argv[0] : p.exe);
  return program.empty() ? fmt::format("pid {}", p.pid) : folded_clean(program);
}

std::string frames_path(const ProcessBacktraces& p, const AllocationGroup& g,
                        const SymbolTable& symbols) {
  std::string path;
  for (auto ip = g.frames.rbegin(); ip != g.frames.rend(); ++ip) {
    if (!path.empty()) path += ';';
    path += folded_clean(frame_label(p, *ip, symbols));
  }
  return path;
}

}  // namespace account
