#include "record_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace account {

namespace {
int open_for_append(const std::string& path) {
  return open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
}

std::string reason(int err) {
  return err == ELOOP ? "it is a symbolic link (refused)" : std::strerror(err);
}
}  // namespace

std::string check_record_file(const std::string& path) {
  int fd = open_for_append(path);
  if (fd < 0) return reason(errno);
  close(fd);
  return "";
}

std::string append_record_line(const std::string& path, const std::string& line) {
  int fd = open_for_append(path);
  if (fd < 0) return reason(errno);
  ssize_t n = write(fd, line.data(), line.size());
  int err = errno;
  close(fd);
  if (n < 0) return reason(err);
  if (size_t(n) != line.size()) return "short write (disk full?)";
  return "";
}

}  // namespace account
