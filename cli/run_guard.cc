#include "run_guard.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "close_descriptors.h"
#include "proc_events.h"

namespace account {

namespace {

constexpr char kReady = 'r';      // the guard follows the tree
constexpr char kOnPurpose = 'x';  // the run ends on purpose

// Drains the waiting events into `members`: a fork by a member adds the
// child, an exit removes it.
void follow(ProcEvents& events, std::unordered_set<pid_t>* members) {
  ProcEvent e;
  while (events.next(&e)) {
    if (e.kind == ProcEvent::kFork && members->count(e.parent))
      members->insert(e.pid);
    else if (e.kind == ProcEvent::kExit)
      members->erase(e.pid);
  }
}

// Kills every member; then those the members forked before they died, until
// 100 ms pass without a new one (a fork racing a SIGKILL is undone by the
// kernel, so the tree cannot outgrow this). Other processes' events do not
// count: on a busy machine they never pause.
void kill_tree(ProcEvents& events, std::unordered_set<pid_t>* members) {
  std::unordered_set<pid_t> killed;
  auto quiet_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (std::chrono::steady_clock::now() <= quiet_until) {
    follow(events, members);
    bool more = false;
    for (pid_t pid : *members)
      if (killed.insert(pid).second) {
        kill(pid, SIGKILL);
        more = true;
      }
    if (more) quiet_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    pollfd p{events.fd(), POLLIN, 0};
    poll(&p, 1, 10);
  }
}

[[noreturn]] void guard(ProcEvents& events, int run_fd, pid_t run) {
  setsid();  // no terminal's INT, QUIT or HUP reaches it
  prctl(PR_SET_NAME, "account-guard", 0, 0, 0);
  close_descriptors_except([&](int fd) {
    return fd == run_fd || fd == events.fd();
  });  // holds no pipe a reader of the run waits on
  std::unordered_set<pid_t> members{run};
  for (;;) {
    pollfd p[2] = {{run_fd, POLLIN, 0}, {events.fd(), POLLIN, 0}};
    if (poll(p, 2, -1) < 0 && errno != EINTR) _exit(1);
    follow(events, &members);
    if (p[0].revents) {
      char c = 0;
      if (recv(run_fd, &c, 1, 0) == 1 && c == kOnPurpose) _exit(0);
      members.erase(run);
      members.erase(getpid());
      kill_tree(events, &members);
      _exit(0);
    }
  }
}

}  // namespace

RunGuard::RunGuard() {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    error_ = std::strerror(errno);
    return;
  }
  pid_t run = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    close(pair[0]);
    // Forked again and orphaned: the guard is no child of the run, so its
    // samplers and waits never meet it.
    if (fork() != 0) _exit(0);
    ProcEvents events;
    if (!events.ok()) _exit(1);
    // Subscribed before the run's first child: every fork of the tree is seen.
    if (send(pair[1], &kReady, 1, MSG_NOSIGNAL) != 1) _exit(1);
    guard(events, pair[1], run);
  }
  close(pair[1]);
  if (pid < 0) {
    error_ = std::strerror(errno);
    close(pair[0]);
    return;
  }
  waitpid(pid, nullptr, 0);
  pollfd p{pair[0], POLLIN, 0};
  char c = 0;
  if (poll(&p, 1, 2000) != 1 || recv(pair[0], &c, 1, 0) != 1 || c != kReady) {
    error_ = "no process events (needs CAP_NET_ADMIN in the initial network namespace)";
    close(pair[0]);
    return;
  }
  fd_ = pair[0];
}

RunGuard::~RunGuard() {
  if (fd_ < 0) return;
  send(fd_, &kOnPurpose, 1, MSG_NOSIGNAL);
  close(fd_);
}

}  // namespace account
