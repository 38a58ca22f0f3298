/// `account compare --backtraces`: per operation, the call stacks (stack_path.h)
/// whose allocated bytes a run changed between the first file and a later one,
/// the way heaptrack's --diff and pprof's -diff_base show what grew.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aggregate.h"
#include "backtrace_record.h"
#include "backtrace_report.h"

namespace account {

/// One build's side: its backtraces, their names, and its operations (for
/// the number of runs each operation's bytes are divided by).
struct StackSide {
  std::string name;
  const std::vector<ProcessBacktraces>* backtraces = nullptr;
  const SymbolTable* symbols = nullptr;
  const std::vector<Operation>* operations = nullptr;
};

struct StackChange {
  std::string path;              ///< program;frame;...;frame, root first
  double before = 0, after = 0;  ///< bytes a run
};

struct OperationStackDiff {
  std::string test, op;
  size_t runs_before = 0, runs_after = 0;
  std::vector<StackChange> grew, shrank;  ///< largest change first
};

/// The stacks whose bytes a run differ between `before` and `after`, per
/// operation either side has backtraces for.
std::vector<OperationStackDiff> stack_diff(const StackSide& before, const StackSide& after);

/// The text: per operation, what grew and what shrank, at most `limit` of each.
std::string render_stack_diff(const std::vector<OperationStackDiff>& diffs,
                              const std::string& before, const std::string& after,
                              size_t limit = 20);

}  // namespace account
