/// The DEV:INO a file is named by in the environment account run gives its
/// tree (ACCOUNT_OUTPUT_ID, ACCOUNT_RUN_DIR_PARENT): the form the shim's
/// parse_file_id (libaccount/settings.h) reads.
#pragma once

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdint>
#include <string>

namespace account {

inline std::string file_id(const struct stat& st) {
  return fmt::format("{}:{}", uint64_t(st.st_dev), uint64_t(st.st_ino));
}

}  // namespace account
