#include "run_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "commands.h"
#include "guard_protocol.h"
#include "raw_syscall.h"
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

// What starting account-guard takes, made before the clones that start it
// and read by the guard until its exec (one guard a process).
struct GuardSpawn {
  char path[4096];
  char run[24];
  char* argv[3];
  int socket, list, devnull;
  int exec_error;  // the guard's failed exec (errno), written before it exits
};
GuardSpawn g_spawn;
alignas(16) char g_guard_stack[16 * 1024];

// The guard until its exec, in this process's memory: only inline system
// calls (no errno, no lazily bound call, no lock: another thread of account
// run may run meanwhile). Its descriptors, its own session, then the exec.
// Signals stay blocked through the exec (a handler of account run must not
// run here); the guard's main restores their default handling.
int exec_guard(void*) {
  GuardSpawn& s = g_spawn;
  char* envp[] = {nullptr};
  long err = 0;
  int to[5] = {kGuardSocketFd, kGuardListFd, 0, 1, 2};
  int from[5] = {s.socket, s.list, s.devnull, s.devnull, s.devnull};
  for (int i = 0; i < 5 && err >= 0; ++i) err = raw_syscall(SYS_dup2, from[i], to[i]);
  if (err >= 0) err = raw_syscall(SYS_close_range, kGuardListFd + 1, ~0u, 0);
  if (err >= 0) err = raw_syscall(SYS_setsid);
  if (err >= 0)
    err = raw_syscall(SYS_execve, reinterpret_cast<long>(s.path), reinterpret_cast<long>(s.argv),
                      reinterpret_cast<long>(envp));
  __atomic_store_n(&s.exec_error, int(-err), __ATOMIC_RELEASE);
  raw_syscall(SYS_exit, 127);
  return 127;
}

// Why the guard's exec failed, once the clone that started it returned (0:
// it did not fail).
int exec_error() {
  return __atomic_load_n(&g_spawn.exec_error, __ATOMIC_ACQUIRE);
}

// The process in between: it starts the guard and ends, so the guard is
// orphaned before account run becomes a subreaper. Both share account run's
// memory (CLONE_VM) and make it wait (CLONE_VFORK): this one until it ended,
// the guard until its exec. (A guard beside the run, without CLONE_VFORK,
// spared the run 0.1-0.8 ms more, but valgrind refuses such a clone and ends
// the whole program: `valgrind account run` must work.) An errno, or 0.
int start_guard_and_exit(void* result) {
  if (clone(exec_guard, g_guard_stack + sizeof g_guard_stack, CLONE_VM | CLONE_VFORK | SIGCHLD,
            nullptr) < 0)
    *static_cast<int*>(result) = errno;
  _exit(0);
}

// Starts account-guard with `socket` and `list` at its fixed descriptors, in a
// session of its own (no terminal's INT, QUIT or HUP reaches it), with no
// environment (so no LD_PRELOAD) and /dev/null on 0-2 (it holds no pipe a
// reader of the run waits on), orphaned by the time this returns. Clones of
// this process without its copies of pages and with a handful of system
// calls before the exec (posix_spawn made 64 more, one a signal). 0, or why
// not as an errno.
int spawn_orphaned_guard(const std::string& path, int socket, int list) {
  if (path.size() >= sizeof g_spawn.path) return ENAMETOOLONG;
  int devnull = above_guard_fds(open("/dev/null", O_RDWR | O_CLOEXEC));
  if (devnull < 0) return errno;
  GuardSpawn& s = g_spawn;
  std::memcpy(s.path, path.c_str(), path.size() + 1);
  std::snprintf(s.run, sizeof s.run, "%d", int(getpid()));
  s.argv[0] = const_cast<char*>("account-guard");
  s.argv[1] = s.run;
  s.argv[2] = nullptr;
  s.socket = socket;
  s.list = list;
  s.devnull = devnull;
  s.exec_error = 0;
  // The process in between runs on this array while this one waits.
  alignas(16) char between_stack[64 * 1024];
  int error = 0;
  sigset_t all, held;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &held);
  pid_t between = clone(start_guard_and_exit, between_stack + sizeof between_stack,
                        CLONE_VM | CLONE_VFORK | SIGCHLD, &error);
  int clone_error = errno;
  pthread_sigmask(SIG_SETMASK, &held, nullptr);
  close(devnull);
  if (between < 0) return clone_error;
  while (waitpid(between, nullptr, 0) < 0 && errno == EINTR) {
  }
  return error ? error : exec_error();
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
  // The list the guard reads if the run dies before the guard said it follows
  // by process events, or always without them; pages never written cost nothing.
  int list_fd = above_guard_fds(memfd_create("account-guard-list", MFD_CLOEXEC));
  void* shared =
      list_fd >= 0 && ftruncate(list_fd, sizeof(GuardList)) == 0
          ? mmap(nullptr, sizeof(GuardList), PROT_READ | PROT_WRITE, MAP_SHARED, list_fd, 0)
          : MAP_FAILED;
  if (shared != MAP_FAILED) list_ = static_cast<GuardList*>(shared);
  if (guard_end < 0 || !list_)
    give_up(std::string("cannot make what it shares with the run: ") + std::strerror(errno));
  else if (int err = spawn_orphaned_guard(path_, guard_end, list_fd); err != 0)
    give_up(path_ + ": " + std::strerror(err));
  if (guard_end >= 0) close(guard_end);
  if (list_fd >= 0) close(list_fd);
}

void RunGuard::give_up(const std::string& why) {
  error_ = why;
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (list_) munmap(list_, sizeof(GuardList));
  list_ = nullptr;
}

void RunGuard::learn() {
  if (ready_ || fd_ < 0) return;
  char c = 0;
  ssize_t n;
  while ((n = recv(fd_, &c, 1, MSG_DONTWAIT)) < 0 && errno == EINTR) {
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
  if (n == 1) {
    // No other byte comes from the guard; ours is closed only once it ended
    // (its close would be the run's death to a live guard).
    ready_ = c == kGuardReady || c == kGuardReadyByList;
    if (!ready_) return;
    if (c == kGuardReady) {
      // It follows by events: a list left behind would only go stale.
      __atomic_store_n(&list_->count[0], 0u, __ATOMIC_RELAXED);
      __atomic_store_n(&list_->count[1], 0u, __ATOMIC_RELEASE);
      munmap(list_, sizeof(GuardList));
      list_ = nullptr;
    }
    return;
  }
  give_up(path_ + " ended before it said it guards the run");
  say_if_unguarded();
}

void RunGuard::publish(pid_t command, const std::vector<pid_t>& live) {
  learn();
  if (!list_) return;
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

void RunGuard::say_if_unguarded() {
  if (error_.empty() || said_) return;
  said_ = true;
  // The error names a path: print_message escapes what a file name may hold.
  print_message("account run: no guard (" + error_ +
                "): if account run is killed, what the command started runs on");
}

RunGuard::~RunGuard() {
  if (list_) munmap(list_, sizeof(GuardList));
  if (fd_ < 0) return;
  // The byte wakes nothing; the socket stays open until this process exits,
  // whose close wakes the guard to read it. Woken by an earlier close, the
  // guard's own exit could take this CPU from account run's last steps.
  send(fd_, &kGuardOnPurpose, 1, MSG_NOSIGNAL);
}

void ready_for_children(RunGuard& guard) {
  if (!guard.first_child()) return;
  guard.say_if_unguarded();
  prctl(PR_SET_CHILD_SUBREAPER, 1);
}

}  // namespace account
