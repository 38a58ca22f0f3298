#include "output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "commands.h"

namespace account {

namespace {

// The temporary file of the command's output, removed by a signal that ends
// the command (INT, TERM, HUP, PIPE) so an interrupted command leaves nothing.
char g_temp[PATH_MAX];
volatile sig_atomic_t g_temp_set = 0;
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

void remove_temp_and_die(int sig) {
  if (g_temp_set) unlink(g_temp);
  signal(sig, SIG_DFL);
  raise(sig);
}

void guard_temp(const std::string& temp) {
  if (g_temp_set || temp.size() >= sizeof g_temp) return;
  std::memcpy(g_temp, temp.c_str(), temp.size() + 1);
  g_temp_set = 1;
  for (int sig : kCleanupSignals) {
    struct sigaction old;
    // A signal the command handles (or ignores) itself is left to it.
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
      signal(sig, remove_temp_and_die);
  }
}

void unguard_temp(const std::string& temp) {
  if (g_temp_set && temp == g_temp) g_temp_set = 0;
}

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  return "not a regular file";
}

std::string directory_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

mode_t default_mode() {
  mode_t mask = umask(0);
  umask(mask);
  return 0644 & ~mask;
}

bool write_all(int fd, std::string_view bytes, int* err) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *err = n < 0 ? errno : EIO;
      return false;
    }
    bytes.remove_prefix(size_t(n));
  }
  return true;
}

// The input that is the same file as the output `target`, or "".
std::string same_file_input(const struct stat& target, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    struct stat st;
    bool is_stdin = input == "-";
    if ((is_stdin ? fstat(STDIN_FILENO, &st) : stat(input.c_str(), &st)) != 0) continue;
    if (st.st_dev == target.st_dev && st.st_ino == target.st_ino)
      return is_stdin ? "standard input" : input;
  }
  return "";
}

}  // namespace

OutputFile::OutputFile(const std::string& command, const std::string& path,
                       const std::vector<std::string>& inputs, std::optional<mode_t> wanted_mode)
    : command_(command), path_(path) {
  if (path.empty() || path == "-") {
    to_stdout_ = true;
    fd_ = STDOUT_FILENO;
    return;
  }
  // Through links too: stat follows them, as reading the input did.
  struct stat followed;
  if (stat(path.c_str(), &followed) == 0) {
    std::string input = same_file_input(followed, inputs);
    if (!input.empty())
      throw UsageError{
          fmt::format("{}: -o {} is the input {}: writing it would destroy it; name another output",
                      command, path, input)};
  }
  struct stat st;
  bool exists = lstat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) fail(std::strerror(errno));
  mode_t mode = wanted_mode ? *wanted_mode : default_mode();
  if (exists && S_ISCHR(st.st_mode)) {
    // O_NONBLOCK: should the device have become a FIFO since, the open cannot block.
    fd_ = open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd_ < 0) fail(std::strerror(errno));
    struct stat opened;
    if (fstat(fd_, &opened) != 0 || !S_ISCHR(opened.st_mode)) fail("it changed while opened");
    fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
    return;
  }
  if (exists && S_ISLNK(st.st_mode)) {
    struct stat target;
    if (stat(path.c_str(), &target) == 0 && !S_ISREG(target.st_mode))
      fail(fmt::format("it is a symbolic link to {} (refused: name it directly, or use -o -)",
                       kind_of(target.st_mode)));
  } else if (exists && !S_ISREG(st.st_mode)) {
    fail(fmt::format("it is {} (refused: use -o - and a redirect)", kind_of(st.st_mode)));
  } else if (exists && !wanted_mode) {
    mode = st.st_mode & 0777;
  }
  // The rename replaces the link itself; the file it led to is never opened.
  std::string base = base_of(path);
  if (base.size() > 200) base.resize(200);  // the suffix must still fit in NAME_MAX
  temp_ = fmt::format("{}/.{}.XXXXXX", directory_of(path), base);
  fd_ = mkostemp(temp_.data(), O_CLOEXEC);  // O_EXCL, mode 0600 until commit
  if (fd_ < 0) {
    temp_.clear();
    fail(std::strerror(errno));
  }
  guard_temp(temp_);
  int err = 0;
  if (fchmod(fd_, mode) != 0) err = errno;
  // Root replacing a user's file leaves it the user's.
  if (err == 0 && exists && S_ISREG(st.st_mode) && geteuid() == 0 &&
      (st.st_uid != 0 || st.st_gid != 0))
    (void)!fchown(fd_, st.st_uid, st.st_gid);
  if (err != 0) fail(std::strerror(err));
}

OutputFile::~OutputFile() {
  if (!temp_.empty()) {
    unlink(temp_.c_str());
    unguard_temp(temp_);
  }
  if (fd_ >= 0 && !to_stdout_) close(fd_);
}

void OutputFile::fail(const std::string& reason) const {
  throw UsageError{fmt::format("{}: cannot write {}: {}", command_,
                               to_stdout_ ? "standard output" : path_, reason)};
}

void OutputFile::append(std::string_view bytes) {
  if (error_ == 0 && fd_ >= 0) write_all(fd_, bytes, &error_);
}

void OutputFile::commit() {
  if (fd_ < 0) fail("already written");
  int err = error_;
  if (!temp_.empty()) {
    if (err == 0 && fsync(fd_) != 0) err = errno;
    if (close(fd_) != 0 && err == 0) err = errno;
    fd_ = -1;
    if (err == 0 && rename(temp_.c_str(), path_.c_str()) != 0) err = errno;
    if (err != 0) unlink(temp_.c_str());
    unguard_temp(temp_);
    temp_.clear();
  } else if (!to_stdout_) {
    if (close(fd_) != 0 && err == 0) err = errno;
    fd_ = -1;
  } else {
    fd_ = -1;
  }
  if (err != 0) fail(std::strerror(err));
}

void OutputFile::write(std::string_view bytes) {
  append(bytes);
  commit();
}

std::string replace_file(const std::string& path, std::string_view text, mode_t mode) {
  try {
    OutputFile file("", path, {}, mode);
    file.write(text);
    return "";
  } catch (const UsageError& e) {
    // "": cannot write PATH: reason -> "cannot write PATH: reason"
    return e.what.substr(e.what.find(' ') + 1);
  }
}

}  // namespace account
