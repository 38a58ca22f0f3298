// cli/guard_main.cc: account-guard started as account run starts it (the
// descriptors of guard_protocol.h, no environment), with this test as the
// run. account run does not wait for its guard, so the guard must find a tree
// born before it subscribed to the process events, and a run that died before
// it read the guard's ready byte is taken down through the list it published.
// Real processes; the guard follows by process events, which needs root.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "guard_protocol.h"

namespace account {
namespace {

struct StartedGuard {
  pid_t pid = -1;
  int run_end = -1;  // the run's end of the socket
};

// account-guard with `list_fd` as its list, this process as its run.
StartedGuard start_guard(int list_fd) {
  int pair[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pair[1], kGuardSocketFd);
  posix_spawn_file_actions_adddup2(&actions, list_fd, kGuardListFd);
  // As account run starts it: nothing of this test's output held open.
  for (int fd = 0; fd <= 2; ++fd)
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0);
  std::string run = std::to_string(getpid());
  char* argv[] = {const_cast<char*>("account-guard"), run.data(), nullptr};
  char* envp[] = {nullptr};
  StartedGuard g;
  EXPECT_EQ(posix_spawn(&g.pid, ACCOUNT_GUARD_PATH, &actions, nullptr, argv, envp), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(pair[1]);
  g.run_end = pair[0];
  return g;
}

// A GuardList in a memfd, as account run shares it; `listed` published.
int make_list(pid_t listed) {
  int fd = int(syscall(SYS_memfd_create, "guard-main-test-list", 0));
  EXPECT_GE(fd, 0);
  EXPECT_EQ(ftruncate(fd, sizeof(GuardList)), 0);
  void* p = mmap(nullptr, sizeof(GuardList), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  EXPECT_NE(p, MAP_FAILED);
  GuardList* list = static_cast<GuardList*>(p);
  if (listed > 0) {
    list->pids[0][0] = listed;
    list->count[0] = 1;
  }
  munmap(p, sizeof(GuardList));
  return fd;
}

char ready_byte(int run_end) {
  pollfd p{run_end, POLLIN, 0};
  char c = 0;
  if (poll(&p, 1, 5000) != 1 || recv(run_end, &c, 1, 0) != 1) return 0;
  return c;
}

// A process that forks one more and both wait: their pids (*below's is the
// grandchild's), the first one this test's child. Returns once both run: the
// grandchild writes its pid, the one thing on the pipe.
pid_t fork_two(pid_t* below) {
  int ready[2];
  EXPECT_EQ(pipe(ready), 0);
  pid_t top = fork();
  if (top == 0) {
    if (fork() == 0) {
      pid_t self = getpid();
      if (write(ready[1], &self, sizeof self) != sizeof self) _exit(1);
    }
    for (;;) pause();
  }
  pid_t child = -1;
  EXPECT_EQ(read(ready[0], &child, sizeof child), ssize_t(sizeof child));
  close(ready[0]);
  close(ready[1]);
  *below = child;
  return top;
}

// Whatever a test started is killed when it ends, passed or failed: a process
// left waiting would hold the test's output open.
struct KillAtEnd {
  std::vector<pid_t> pids;
  ~KillAtEnd() {
    for (pid_t pid : pids)
      if (pid > 0) kill(pid, SIGKILL);
  }
};

// True when `pid` ends within 2 s (it is no child of ours: its pidfd says).
bool ends(int pidfd) {
  pollfd p{pidfd, POLLIN, 0};
  return poll(&p, 1, 2000) == 1;
}

int pidfd(pid_t pid) {
  return int(syscall(SYS_pidfd_open, pid, 0));
}

int guard_status(pid_t guard) {
  int status = -1;
  for (int i = 0; i < 200 && waitpid(guard, &status, WNOHANG) == 0; ++i) usleep(10000);
  return status;
}

TEST(GuardMain, ATreeBornBeforeTheGuardIsKilledWithTheRun) {
  ASSERT_EQ(geteuid(), 0u) << "the guard follows by process events as root only";
  pid_t grandchild = -1;
  pid_t child = fork_two(&grandchild);
  KillAtEnd started{{child, grandchild}};
  int child_fd = pidfd(child), grandchild_fd = pidfd(grandchild);
  int list = make_list(0);
  StartedGuard g = start_guard(list);
  close(list);
  EXPECT_EQ(ready_byte(g.run_end), kGuardReady);
  close(g.run_end);  // the run dies without its byte

  EXPECT_TRUE(ends(child_fd)) << "the child " << child << " lives on";
  EXPECT_TRUE(ends(grandchild_fd)) << "the grandchild " << grandchild << " lives on";
  kill(grandchild, SIGKILL);
  kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_EQ(guard_status(g.pid), 0);
  close(child_fd);
  close(grandchild_fd);
}

TEST(GuardMain, ARunDeadBeforeItReadTheReadyByteIsTakenDownByItsList) {
  ASSERT_EQ(geteuid(), 0u) << "the guard follows by process events as root only";
  // The command of a run that died: orphaned, no descendant of the run any
  // more, known to the guard only by the list.
  pid_t orphan = -1, below = -1;
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  pid_t between = fork();
  if (between == 0) {
    pid_t top = fork_two(&below);
    if (write(pipe_fds[1], &top, sizeof top) != sizeof top ||
        write(pipe_fds[1], &below, sizeof below) != sizeof below)
      _exit(1);
    _exit(0);
  }
  KillAtEnd started;
  ASSERT_EQ(read(pipe_fds[0], &orphan, sizeof orphan), ssize_t(sizeof orphan));
  started.pids.push_back(orphan);
  ASSERT_EQ(read(pipe_fds[0], &below, sizeof below), ssize_t(sizeof below));
  started.pids.push_back(below);
  ASSERT_EQ(waitpid(between, nullptr, 0), between);
  int orphan_fd = pidfd(orphan), below_fd = pidfd(below);
  ASSERT_GE(orphan_fd, 0);
  ASSERT_GE(below_fd, 0);

  int list = make_list(orphan);
  StartedGuard g = start_guard(list);
  close(list);
  close(g.run_end);  // dead before the guard could say it is ready

  EXPECT_TRUE(ends(orphan_fd)) << "the listed " << orphan << " lives on";
  EXPECT_TRUE(ends(below_fd)) << "its child " << below << " lives on";
  EXPECT_EQ(guard_status(g.pid), 0);
}

TEST(GuardMain, ARunThatEndsOnPurposeLeavesItsTree) {
  pid_t grandchild = -1;
  pid_t child = fork_two(&grandchild);
  KillAtEnd started{{child, grandchild}};
  int grandchild_fd = pidfd(grandchild);
  int list = make_list(child);
  StartedGuard g = start_guard(list);
  close(list);
  char c = ready_byte(g.run_end);
  EXPECT_TRUE(c == kGuardReady || c == kGuardReadyByList) << int(c);
  ASSERT_EQ(send(g.run_end, &kGuardOnPurpose, 1, MSG_NOSIGNAL), 1);
  close(g.run_end);
  EXPECT_EQ(guard_status(g.pid), 0);
  // Both still run: the guard has ended and killed nothing.
  EXPECT_EQ(kill(child, 0), 0);
  pollfd p{grandchild_fd, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);
  kill(grandchild, SIGKILL);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(grandchild_fd);
}

}  // namespace
}  // namespace account
