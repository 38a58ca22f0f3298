#include "record_file.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace account {

namespace {
int open_for_append(const std::string& path) {
  // Read-write so the last byte can be checked; write-only where reading is not allowed.
  constexpr int kFlags = O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW;
  int fd = open(path.c_str(), O_RDWR | kFlags, 0600);
  if (fd < 0 && errno == EACCES) fd = open(path.c_str(), O_WRONLY | kFlags, 0600);
  return fd;
}

std::string reason(int err) {
  return err == ELOOP ? "it is a symbolic link (refused)" : std::strerror(err);
}
}  // namespace

bool lock_within_a_second(int fd) {
  // A second on the clock, not a count of 1 ms sleeps: on a loaded machine
  // each sleep lasts longer, and a thousand of them several seconds.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {  // released by close()
    if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() >= deadline)
      return false;
    usleep(1000);
  }
  return true;
}

std::string check_record_file(const std::string& path) {
  int fd = open_for_append(path);
  if (fd < 0) return reason(errno);
  close(fd);
  return "";
}

std::string append_record_line(const std::string& path, const std::string& line) {
  int fd = open_for_append(path);
  if (fd < 0) return reason(errno);
  // As the shim does: never glue a record to a line a dead writer left unfinished.
  if (!lock_within_a_second(fd))
    fmt::print(stderr,
               "account: the lock on {} was held for 1 s by another process; writing the record "
               "without it\n",
               path);
  char newline = '\n', last = '\n';
  struct stat st;
  if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
    last = '\n';
  iovec parts[2] = {{&newline, last == '\n' ? 0u : 1u},
                    {const_cast<char*>(line.data()), line.size()}};
  ssize_t n = writev(fd, parts, 2);
  int err = errno;
  close(fd);
  if (n < 0) return reason(err);
  if (size_t(n) != line.size() + parts[0].iov_len) return "short write (disk full?)";
  return "";
}

}  // namespace account
