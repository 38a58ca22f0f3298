#include "shared_library.h"

#include <dlfcn.h>

namespace account {

bool load_shared_library(const char* soname, const char* install_hint,
                         std::initializer_list<SharedSymbol> symbols, std::string* why) {
  void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    *why = std::string("cannot load ") + soname + " (" + install_hint + ")";
    return false;
  }
  for (const SharedSymbol& s : symbols) {
    *s.address = dlsym(lib, s.name);
    if (!*s.address) {
      *why = std::string(soname) + " has no " + s.name + ": too old a version";
      dlclose(lib);
      return false;
    }
  }
  return true;
}

}  // namespace account
