/// Running a program for a test: environment changes, captured output, exit status.
#pragma once

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace account::testing {

struct ProgramResult {
  std::string out;
  std::string err;
  int status = -1;  // exit code, or 128 + signal
  bool timed_out = false;
  pid_t pid = 0;  // the program's process id, which names what it leaves behind
};

struct ProgramOptions {
  std::map<std::string, std::optional<std::string>> env;  // nullopt: unset
  std::string cwd;
  std::string stdin_text;
  double timeout_s = 60;
  bool preload = false;  // add the shim to LD_PRELOAD
};

ProgramResult run_program(const std::vector<std::string>& argv, const ProgramOptions& options = {});

/// A fresh temporary directory, removed with the object.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// Path of a test program built in tests/programs.
std::string test_program(const std::string& name);

/// Makes `root` a directory to chroot into that holds only tests/programs'
/// hello (at /hello), the dynamic loader, libc and, `with_shim`, the shim,
/// each at the path the host has it (the shim at ACCOUNT_SHIM_PATH, where
/// LD_PRELOAD names it): no /proc, no /dev, no /tmp. Debian's amd64 paths.
void make_minimal_root(const std::string& root, bool with_shim = true);

}  // namespace account::testing
