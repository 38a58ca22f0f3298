/// Helpers of the parse tests: inputs under data/, expected outputs under golden/.
#pragma once

#include <string>
#include <vector>

#include "commands/compare.h"
#include "commands/report.h"
#include "compare/compare_table.h"
#include "report_tables.h"

namespace account::testing {

/// PARSE_TEST_DIR/data/NAME.
std::string data_path(const std::string& name);
/// The whole content of a file ("" when missing).
std::string read_file(const std::string& path);
/// Compares `actual` with golden/NAME byte for byte. With ACCOUNT_UPDATE_GOLDEN=1
/// in the environment, rewrites the golden file instead (review the diff!).
void expect_golden(const std::string& name, const std::string& actual);

/// What one call of run_report / run_compare produced.
struct Outcome {
  int status = -1;
  std::string out;
  std::vector<std::string> err;
};
Outcome report(ReportOptions options);
Outcome compare(CompareOptions options);

/// A temporary file holding `content`, removed when the object goes.
class TempFile {
 public:
  explicit TempFile(const std::string& content);
  ~TempFile();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// What a command run through sh gave: its exit status (-1: it did not exit)
/// and its standard output and error, apart.
struct Shell {
  int status = -1;
  std::string out, err;
};
Shell run_shell(const std::string& command);
/// `account ARGS` through sh in data/ (so ARGS may redirect), for the tests
/// built with ACCOUNT_CLI.
Shell run_account(const char* account_cli, const std::string& args);

}  // namespace account::testing
