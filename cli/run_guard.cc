#include "run_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "commands.h"
#include "guard_protocol.h"
#include "shim_location.h"

namespace account {

namespace {

// A descriptor moved above the guard's fixed ones (close-on-exec), so that
// placing it at kGuardSocketFd or kGuardListFd cannot overwrite the other.
int above_guard_fds(int fd) {
  if (fd < 0) return fd;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, kGuardListFd + 1);
  close(fd);
  return moved;
}

// Starts account-guard with `socket` and `list` at its fixed descriptors, in a
// session of its own (no terminal's INT, QUIT or HUP reaches it), with default
// signal handling, no environment (so no LD_PRELOAD) and /dev/null on 0-2 (it
// holds no pipe a reader of the run waits on). Its pid, or -1 with errno.
pid_t spawn_guard(const std::string& path, int socket, int list) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&actions, socket, kGuardSocketFd);
  posix_spawn_file_actions_adddup2(&actions, list, kGuardListFd);
  for (int fd = 0; fd <= 2; ++fd)
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0);
  posix_spawn_file_actions_addclosefrom_np(&actions, kGuardListFd + 1);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string run = std::to_string(getpid());
  char* argv[] = {const_cast<char*>("account-guard"), run.data(), nullptr};
  char* envp[] = {nullptr};
  pid_t pid = -1;
  int err = posix_spawn(&pid, path.c_str(), &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (err != 0) {
    errno = err;
    return -1;
  }
  return pid;
}

// Waits for the guard `pid` started: its first process exits 0 once it forked
// the guard, which then sends its ready byte (*c). "" when it did, else why not.
std::string await_guard(const std::string& path, pid_t pid, int run_end, char* c) {
  int status = 0;
  pid_t waited;
  while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited != pid) return path + ": " + std::strerror(errno);
  if (WIFSIGNALED(status))
    return path + " was killed by signal " + std::to_string(WTERMSIG(status));
  if (WEXITSTATUS(status) != 0) return path + " exited with " + std::to_string(WEXITSTATUS(status));
  pollfd p{run_end, POLLIN, 0};
  if (poll(&p, 1, 2000) != 1 || recv(run_end, c, 1, 0) != 1 ||
      (*c != kGuardReady && *c != kGuardReadyByList))
    return path + " said not within 2 s that it guards the run";
  return "";
}

}  // namespace

RunGuard::RunGuard() {
  path_ = find_guard(&error_);
  if (path_.empty()) return;
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    error_ = std::strerror(errno);
    return;
  }
  fd_ = pair[0];
  int guard_end = above_guard_fds(pair[1]);
  // The list, shared with a guard that has no process events; pages never
  // written cost nothing.
  int list_fd = above_guard_fds(memfd_create("account-guard-list", MFD_CLOEXEC));
  void* shared =
      list_fd >= 0 && ftruncate(list_fd, sizeof(GuardList)) == 0
          ? mmap(nullptr, sizeof(GuardList), PROT_READ | PROT_WRITE, MAP_SHARED, list_fd, 0)
          : MAP_FAILED;
  if (shared != MAP_FAILED) list_ = static_cast<GuardList*>(shared);
  if (guard_end < 0 || !list_)
    error_ = std::string("cannot make what it shares with the run: ") + std::strerror(errno);
  else if ((starting_ = spawn_guard(path_, guard_end, list_fd)) < 0)
    error_ = path_ + ": " + std::strerror(errno);
  if (guard_end >= 0) close(guard_end);
  if (list_fd >= 0) close(list_fd);
}

bool RunGuard::await() {
  if (awaited_) return false;
  awaited_ = true;
  char c = 0;
  if (starting_ > 0) error_ = await_guard(path_, starting_, fd_, &c);
  starting_ = -1;
  if (!error_.empty()) {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    if (list_) munmap(list_, sizeof(GuardList));
    list_ = nullptr;
  } else if (c == kGuardReady) {
    munmap(list_, sizeof(GuardList));
    list_ = nullptr;
  }
  return true;
}

void RunGuard::publish(pid_t command, const std::vector<pid_t>& live) {
  if (!by_list()) return;
  if (!published_.empty() && published_[0] == command &&
      std::equal(live.begin(), live.end(), published_.begin() + 1, published_.end()))
    return;
  published_.assign(1, command);
  published_.insert(published_.end(), live.begin(), live.end());
  uint32_t at = 1 - (__atomic_load_n(&list_->published, __ATOMIC_RELAXED) & 1);
  size_t n = std::min(published_.size(), kGuardListCapacity);
  std::copy(published_.begin(), published_.begin() + long(n), list_->pids[at]);
  list_->count[at] = uint32_t(n);
  __atomic_store_n(&list_->published, at, __ATOMIC_RELEASE);
}

RunGuard::~RunGuard() {
  await();  // a run that ended before its first child: the guard's first process reaped
  if (list_) munmap(list_, sizeof(GuardList));
  if (fd_ < 0) return;
  send(fd_, &kGuardOnPurpose, 1, MSG_NOSIGNAL);
  close(fd_);
}

void ready_for_children(RunGuard& guard) {
  if (!guard.await()) return;
  // The error names a path: print_message escapes what a file name may hold.
  if (!guard.error().empty())
    print_message("account run: no guard (" + guard.error() +
                  "): if account run is killed, what the command started runs on");
  prctl(PR_SET_CHILD_SUBREAPER, 1);
}

}  // namespace account
