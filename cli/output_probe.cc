#include "output_probe.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "record_file.h"

namespace account {

namespace {
// A record of a short-lived process is 1-2 KiB; the probe asks for as much.
constexpr size_t kProbeBytes = 2048;

std::string reason(int err) {
  return err == ELOOP ? "it is a symbolic link (refused)" : std::strerror(err);
}

std::string probe_regular(int fd, const std::string& path) {
  // Bounded as the shim bounds its own wait: a lock held elsewhere for more
  // than a second leaves the file unprobed rather than risk cutting a record.
  if (!lock_within_a_second(fd)) {
    fmt::print(stderr, "account: the lock on {} was held for 1 s by another process; not probed\n",
               path);
    return "";
  }
  struct stat st;
  if (fstat(fd, &st) != 0) return reason(errno);
  std::string probe(kProbeBytes - 1, ' ');
  probe.front() = '#';
  probe.push_back('\n');
  ssize_t n;
  do n = write(fd, probe.data(), probe.size());
  while (n < 0 && errno == EINTR);
  int err = n < 0 ? errno : 0;
  // Truncates away whatever was written, even a part of the probe.
  if (n != 0 && ftruncate(fd, st.st_size) != 0 && err == 0) err = errno;
  if (err != 0) return reason(err);
  if (size_t(n) != probe.size()) return std::strerror(ENOSPC);
  return "";
}
}  // namespace

std::string probe_record_file(const std::string& path) {
  // O_NONBLOCK: a FIFO without a reader is refused (ENXIO) rather than hold
  // the command, its signals already blocked, until someone reads it.
  constexpr int kFlags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  int fd = open(path.c_str(), kFlags, 0600);
  if (fd < 0 && errno == ENXIO) return "a FIFO or socket with no reader (refused: it would block)";
  if (fd < 0) return reason(errno);
  std::string err;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    err = reason(errno);
  } else if (S_ISREG(st.st_mode)) {
    err = probe_regular(fd, path);
  } else if (S_ISCHR(st.st_mode)) {
    if (write(fd, "", 0) < 0) err = reason(errno);
  }
  close(fd);
  return err;
}

}  // namespace account
