/// Turning module + address into a function name and file:line, at report time
/// (never in the measured program). The default runs binutils' addr2line once
/// per module and batch of addresses.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace account {

struct SymbolizedFrame {
  std::string function;  ///< demangled; empty when unknown
  std::string location;  ///< "file:line"; empty without debug info
};

class Symbolizer {
 public:
  virtual ~Symbolizer() = default;
  /// One entry per address (file addresses of the object at `path`, in order).
  virtual std::vector<SymbolizedFrame> resolve(const std::string& path,
                                               const std::vector<uint64_t>& addresses) = 0;
};

/// addr2line (from PATH) on the file that holds the object's symbols
/// (symbol_source.h: the object, or its separate debug file under one of
/// `debug_roots`); for a stripped object without one, only an exported
/// function whose extent holds the address is named, never a neighbour.
/// Resolves to empty frames when it cannot run.
std::unique_ptr<Symbolizer> make_addr2line_symbolizer(const std::string& program = "addr2line",
                                                      std::vector<std::string> debug_roots = {
                                                          "/usr/lib/debug"});

/// A C++ symbol demangled with abi::__cxa_demangle; other names unchanged.
std::string demangle(const std::string& name);

}  // namespace account
