#include "output_file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "commands.h"

namespace account {

OutputFile::OutputFile(const std::string& command, const std::string& path)
    : command_(command), path_(path) {
  file_ = path.empty() ? stdout : std::fopen(path.c_str(), "wb");
  if (!file_)
    throw UsageError{fmt::format("{}: cannot write {}: {}", command, path, std::strerror(errno))};
}

OutputFile::~OutputFile() {
  if (file_ && file_ != stdout) std::fclose(file_);
}

void OutputFile::write(const std::string& bytes) {
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), file_) == bytes.size();
  ok = (file_ == stdout ? std::fflush(file_) : std::fclose(file_)) == 0 && ok;
  if (file_ != stdout) file_ = nullptr;
  if (!ok)
    throw UsageError{fmt::format("{}: cannot write {}: {}", command_,
                                 path_.empty() ? "standard output" : path_, std::strerror(errno))};
}

}  // namespace account
