#include "shim_location.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

namespace account {

namespace fs = std::filesystem;

namespace {

// The first of `candidates` that exists, made canonical; "" if none does.
std::string first_existing(const std::vector<fs::path>& candidates) {
  std::error_code ec;
  for (const fs::path& c : candidates)
    if (fs::exists(c, ec)) return fs::weakly_canonical(c, ec).string();
  return "";
}

fs::path running_executable() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

}  // namespace

std::vector<fs::path> shim_candidates(const fs::path& exe) {
  const fs::path prefix = exe.parent_path().parent_path();
  const fs::path relative[] = {
      "libaccount",              // build tree
      ACCOUNT_INSTALL_LIBDIR,    // the configured install prefix
      "lib/" ACCOUNT_MULTIARCH,  // Debian's layout, as in the .deb
      "lib",
      "lib64",
  };
  std::vector<fs::path> out;
  for (const fs::path& dir : relative) {
    fs::path c = (prefix / dir / "libaccount.so").lexically_normal();
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string find_shim_for(const fs::path& exe, std::string* error) {
  if (const char* env = getenv("ACCOUNT_LIB"); env && *env) {
    if (access(env, R_OK) == 0) return fs::absolute(env).string();
    *error = fmt::format("ACCOUNT_LIB={} is not a readable file", env);
    return "";
  }
  std::string found = first_existing(shim_candidates(exe));
  if (found.empty())
    *error = fmt::format("libaccount.so not found next to {} (set ACCOUNT_LIB)", exe.string());
  return found;
}

std::string find_shim(std::string* error) {
  return find_shim_for(running_executable(), error);
}

std::vector<fs::path> guard_candidates(const fs::path& exe) {
  const fs::path prefix = exe.parent_path().parent_path();
  std::vector<fs::path> out{exe.parent_path() / "account-guard"};
  for (const fs::path& dir : {fs::path(ACCOUNT_INSTALL_LIBEXECDIR), fs::path("libexec")}) {
    fs::path c = (prefix / dir / "account-guard").lexically_normal();
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string find_guard(std::string* error) {
  fs::path exe = running_executable();
  std::string found = first_existing(guard_candidates(exe));
  if (found.empty()) *error = fmt::format("account-guard not found next to {}", exe.string());
  return found;
}

}  // namespace account
