/// What the store and history read from a git repository: a commit's identity
/// (full SHA, commit time, parents, subject), the repository's top and a
/// branch's first-parent history. Every call runs `git` (no shell) and turns
/// its failure into one line naming the revision or the directory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace account {

struct CommitInfo {
  std::string sha;                   ///< 40 hex digits
  int64_t time = 0;                  ///< committer time, seconds since the epoch
  std::vector<std::string> parents;  ///< full SHAs, the first parent first
  std::string subject;
};

/// Runs git with `args` (after `git -C dir`); true when it exits 0. Its
/// standard output goes to *out, the first line of its standard error to *err.
bool run_git(const std::string& dir, const std::vector<std::string>& args, std::string* out,
             std::string* err);

/// The top directory of the work tree `dir` is in; nullopt with "DIR is not a
/// git repository" in *error.
std::optional<std::string> git_top(const std::string& dir, std::string* error);

/// The commit `rev` names in the repository at `dir`; nullopt with one line in
/// *error for a directory that is not a repository or a revision it does not know.
std::optional<CommitInfo> resolve_commit(const std::string& dir, const std::string& rev,
                                         std::string* error);

/// Full SHAs of the first-parent history of `rev`, oldest first, from `since`
/// (inclusive, when given) on. nullopt with one line in *error as above.
std::optional<std::vector<std::string>> first_parent_history(const std::string& dir,
                                                             const std::string& rev,
                                                             const std::string& since,
                                                             std::string* error);

}  // namespace account
