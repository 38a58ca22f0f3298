/// A function as the program would get it without the shim: the definition of
/// `name` that follows the shim in the lookup order (dlsym RTLD_NEXT).
#pragma once

#include <dlfcn.h>

namespace account {

/// Stores it in *slot and returns true; leaves *slot alone when there is none.
template <typename F>
bool find_next(F* slot, const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f) *slot = reinterpret_cast<F>(f);
  return f != nullptr;
}

}  // namespace account
