/// Loading a client library by its soname when a store first needs it, so that
/// no account process pays for binding its symbols at start (libpq_library.h,
/// sqlite_library.h).
#pragma once

#include <initializer_list>
#include <string>

namespace account {

/// One function to look up and where its address goes.
struct SharedSymbol {
  const char* name;
  void** address;
};

/// dlopens SONAME (RTLD_NOW | RTLD_LOCAL) and fills every symbol; false with
/// one line in *why naming the library and, when it is missing, INSTALL_HINT.
bool load_shared_library(const char* soname, const char* install_hint,
                         std::initializer_list<SharedSymbol> symbols, std::string* why);

/// The address slot of a function pointer member, for SharedSymbol.
template <typename F>
void** symbol_slot(F* function_pointer) {
  return reinterpret_cast<void**>(function_pointer);
}

}  // namespace account
