// Runs the account binary built with the tests (ACCOUNT_CLI_PATH, a compile
// definition of each test target that runs it) with the given arguments.
#pragma once

#include <string>
#include <vector>

#include "run_program.h"

#ifndef ACCOUNT_CLI_PATH
#error "account_cli.h needs ACCOUNT_CLI_PATH, the path of the account binary"
#endif

namespace account::testing {

inline ProgramResult account(const std::vector<std::string>& args,
                             const ProgramOptions& options = {}) {
  std::vector<std::string> argv = {ACCOUNT_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, options);
}

}  // namespace account::testing
