/// `account store add`: record files checked line by line, then stored with
/// their commit in one transaction. A bad line, an unknown revision or a
/// directory that is not a repository stores nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store.h"

namespace account {

struct AddRequest {
  std::string repo = ".";
  std::string commit = "HEAD";
  std::string branch;
  std::vector<std::string> labels;  ///< "KEY=VALUE"
  std::vector<std::string> files;   ///< "-" reads standard input
};

/// The request read and checked: what Store::add takes.
struct PreparedAdd {
  CommitInfo commit;
  std::vector<Batch> batches;  ///< one per file
  size_t records = 0;          ///< in all files
};

/// The hash a record is known by: SHA-1 of its line, in hex.
std::string record_hash(const std::string& line);

/// Checks "KEY=VALUE" (KEY: letters, digits, '_', '-', '.'); nullopt when it is
/// good, else one line naming it.
std::optional<std::string> bad_label(const std::string& label);

/// Resolves the commit and reads and checks every file, before any store is
/// opened. nullopt with one line in *error.
std::optional<PreparedAdd> prepare_add(const AddRequest& request, std::string* error);

}  // namespace account
