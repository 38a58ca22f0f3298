/// Record lines of made-up runs with chosen figures, and small git
/// repositories, for the store and history tests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace account::testing {

struct RunSpec {
  std::string test = "t", op = "o";
  int run = 0;  ///< makes each run's records distinct (pid, times)
  double cpu_s = 1.0;
  uint64_t malloc_bytes = 1 << 20;
  uint64_t rss_bytes = 8 << 20;
  std::string host = "ci-1";
};

/// A tree record and its one process record (two lines, each ending in '\n').
std::string run_lines(const RunSpec& spec);

/// Runs `git -C dir args...`; its standard output without the last newline.
/// Fails the test when git fails.
std::string git(const std::string& dir, const std::vector<std::string>& args);

/// `git init` in `dir` with a test identity, then `commits` commits with
/// subjects "commit 1", "commit 2", ...; their SHAs, oldest first.
std::vector<std::string> make_repo(const std::string& dir, int commits);

}  // namespace account::testing
