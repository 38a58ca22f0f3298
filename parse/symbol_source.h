/// Where the names of an object's functions are, so a frame is never named
/// after the wrong function. A stripped binary keeps only its exported
/// (dynamic) symbols, and addr2line then names any address after the nearest
/// exported symbol below it: `error` for a frame deep inside Debian's git. So:
/// the object itself when it has a full symbol table (.symtab); else its
/// separate debug file (/usr/lib/debug/.build-id/xx/rest.debug from its build
/// id, or its .gnu_debuglink name next to it, in .debug/ or under the debug
/// root); else only an exported function whose extent holds the address.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace account {

struct SymbolSource {
  /// The file to ask addr2line (the object or its debug file); empty when
  /// neither has a symbol table.
  std::string symbols;
  /// The object's own defined function symbols from .dynsym, with sizes (used
  /// only when `symbols` is empty).
  struct Exported {
    uint64_t start = 0, size = 0;
    std::string name;
  };
  std::vector<Exported> exported;
};

/// Looks at the ELF file `path` (nullopt when it is not a readable ELF file).
/// `debug_roots` are searched in order (default: /usr/lib/debug).
std::optional<SymbolSource> find_symbol_source(const std::string& path,
                                               const std::vector<std::string>& debug_roots = {
                                                   "/usr/lib/debug"});

/// The exported function holding `address`, or "" (never the nearest one below).
std::string exported_function_at(const SymbolSource& source, uint64_t address);

}  // namespace account
