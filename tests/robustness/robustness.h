/// Helpers shared by the robustness tests.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "shim_run.h"

namespace account::testing {

/// Path of a program built in tests/robustness/programs.
inline std::string robustness_program(const std::string& name) {
  return std::string(ROBUSTNESS_PROGRAMS_DIR) + "/" + name;
}

inline std::string dump(const ShimRun& run) {
  return "status " + std::to_string(run.result.status) + "\nstdout:\n" + run.result.out +
         "stderr:\n" + run.result.err + "records:\n" + slurp(run.output);
}

/// Every integer following "key=" in text, in order.
inline std::vector<long long> values_after(const std::string& text, const std::string& key) {
  std::vector<long long> out;
  std::string needle = key + "=";
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    if (at > 0 && text[at - 1] != ' ' && text[at - 1] != '\n') continue;
    out.push_back(std::stoll(text.substr(at + needle.size())));
  }
  return out;
}

/// Checks that each pid has any number of "exec" records followed by exactly
/// one record that is not "exec" (one record per process image); returns the
/// number of images.
inline size_t expect_one_record_per_image(const RecordFile& f, const std::string& context) {
  EXPECT_TRUE(f.bad_lines.empty()) << f.bad_lines.front() << "\n" << context;
  std::map<int64_t, std::vector<std::string>> ends;
  for (const auto& p : f.processes) ends[p.pid].push_back(p.end);
  for (const auto& [pid, list] : ends) {
    for (size_t i = 0; i + 1 < list.size(); ++i)
      EXPECT_EQ(list[i], "exec") << "pid " << pid << " record " << i << "\n" << context;
    EXPECT_NE(list.back(), "exec") << "pid " << pid << " has no final record\n" << context;
  }
  return f.processes.size();
}

}  // namespace account::testing
