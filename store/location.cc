#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "store.h"

namespace account {

std::optional<std::string> store_location(const std::string& option, const std::string& repo,
                                          std::string* error) {
  if (!option.empty()) return option;
  if (const char* env = std::getenv("ACCOUNT_STORE"); env && *env) return std::string(env);
  std::optional<std::string> top = git_top(repo, error);
  if (!top) {
    *error += " (give --store PATH or set ACCOUNT_STORE)";
    return std::nullopt;
  }
  std::string dir = *top + "/.account";
  if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    *error = fmt::format("cannot make {}: {}", dir, std::strerror(errno));
    return std::nullopt;
  }
  return dir + "/results.sqlite";
}

}  // namespace account
