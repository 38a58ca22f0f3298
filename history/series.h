/// The figures of every operation along a branch's first-parent history, read
/// from the store: each stored commit's records aggregated as `account
/// report` does (parse/aggregate.h), so a run here is the same run there.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "changes.h"
#include "store.h"

namespace account {

/// One operation's counted runs at every commit that has them, oldest first.
struct OperationSeries {
  std::string test, op;
  std::vector<CommitInfo> commits;
  CommitSeries runs;  ///< parallel to commits
  /// The machines its runs were measured on: more than one, and a change
  /// point may be a change of machine (HistoryRange::host picks one).
  std::set<std::string> hosts;
};

struct History {
  std::vector<CommitInfo> commits;  ///< every commit of the range with records, oldest first
  std::string newest;               ///< the SHA of the range's newest commit (stored or not)
  std::vector<OperationSeries> series;
};

struct HistoryRange {
  std::string repo = ".";
  std::string rev = "HEAD";  ///< the branch's tip
  std::string since;         ///< the oldest commit to show ("" for all)
  std::string test, op;      ///< only these ("" for all)
  std::string host;          ///< only the records of this machine ("" for all)
};

/// nullopt with one line in *error (the repository, the revisions, the store).
std::optional<History> load_history(Store& store, const HistoryRange& range, std::string* error);

}  // namespace account
