/// The large-allocation backtraces of a record ("backtraces",
/// "backtraces_other", "backtrace_modules"; see docs/backtraces.md), read
/// apart from the rest of the record so `account report --backtraces` needs
/// nothing from the table path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace account {

/// An executable or shared object as the shim saw it loaded.
struct LoadedModule {
  std::string path;
  uint64_t base = 0;  ///< load bias: file address = ip - base
  uint64_t start = 0, end = 0;
  std::string build_id;  ///< hex, may be empty
};

/// Allocations from one call stack.
/// With ACCOUNT_BACKTRACE_LEAKS (ProcessBacktraces::leaks): what of the
/// allocations was still live at the image's end (not known after exec) and
/// what was freed as temporaries; bytes are requests.
struct LeakFigures {
  std::optional<uint64_t> live_count, live_bytes;
  uint64_t temporary_count = 0, temporary_bytes = 0;
};

struct AllocationGroup {
  uint64_t count = 0, bytes = 0, largest = 0;
  std::vector<uint64_t> frames;  ///< return addresses, innermost first
  LeakFigures leaks = {};
};

/// What did not fit in the record's groups, summed.
struct OtherAllocations {
  uint64_t groups = 0, count = 0, bytes = 0, largest = 0;
  LeakFigures leaks = {};
};

/// One process image's backtraces and what identifies it.
struct ProcessBacktraces {
  std::string host;  ///< "" in records without one
  std::string test, op;
  int64_t pid = 0;
  std::string exe;
  std::vector<std::string> argv;
  uint64_t threshold = 0;
  /// ACCOUNT_BACKTRACE_SAMPLE: one capture about every this many bytes, the
  /// groups' counts and bytes estimates of every allocation (0: not sampled).
  uint64_t sample_bytes = 0;
  uint64_t depth = 0;
  /// ACCOUNT_BACKTRACE_LEAKS: the groups carry LeakFigures; captured blocks
  /// the shim's table had no room for (their frees are not seen).
  bool leaks = false;
  uint64_t untracked_blocks = 0;
  std::vector<AllocationGroup> groups;  ///< largest bytes first
  std::optional<OtherAllocations> other;
  std::vector<LoadedModule> modules;

  /// The module holding `ip`, or nullptr.
  const LoadedModule* module_of(uint64_t ip) const;
};

/// Parses one record line. Returns nullopt with an empty *reason for a valid
/// record without backtraces (off, or a tree record), and nullopt with the
/// reason for a line that is not a valid record.
std::optional<ProcessBacktraces> parse_backtraces(std::string_view line, std::string* reason);

}  // namespace account
