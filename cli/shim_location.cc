#include "shim_location.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

namespace account {

namespace fs = std::filesystem;

std::string find_shim(std::string* error) {
  if (const char* env = getenv("ACCOUNT_LIB"); env && *env) {
    if (access(env, R_OK) == 0) return fs::absolute(env).string();
    *error = fmt::format("ACCOUNT_LIB={} is not a readable file", env);
    return "";
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  fs::path bin = self.parent_path();
  const fs::path candidates[] = {
      bin / "../libaccount/libaccount.so",                  // build tree
      bin / "../" ACCOUNT_INSTALL_LIBDIR "/libaccount.so",  // installed prefix
      bin / "../lib/libaccount.so",
  };
  for (const fs::path& c : candidates)
    if (fs::exists(c, ec)) return fs::weakly_canonical(c, ec).string();
  *error = fmt::format("libaccount.so not found next to {} (set ACCOUNT_LIB)", self.string());
  return "";
}

}  // namespace account
