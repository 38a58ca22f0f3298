/// `-o FILE` of the commands that print a report: the file is created before
/// any work starts (a bad path fails at once, not after reading a large
/// input), written whole at the end.
#pragma once

#include <cstdio>
#include <string>

namespace account {

class OutputFile {
 public:
  /// `path` empty: standard output. Throws UsageError ("COMMAND: cannot write
  /// PATH: reason") when the file cannot be created.
  OutputFile(const std::string& command, const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Writes and closes; throws UsageError on a failed write.
  void write(const std::string& bytes);

 private:
  std::string command_, path_;
  std::FILE* file_ = nullptr;
};

}  // namespace account
