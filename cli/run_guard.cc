#include "run_guard.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <unordered_set>
#include <vector>

#include "close_descriptors.h"
#include "proc_events.h"
#include "tree_members.h"
#include "tree_stop.h"

namespace account {

namespace {

constexpr char kReady = 'r';        // the guard follows the tree by process events
constexpr char kReadyByList = 'l';  // ... by the list account run publishes
constexpr char kOnPurpose = 'x';    // the run ends on purpose

// Members a published list holds at most; a larger tree is published cut
// (its other processes are still found below those listed).
constexpr size_t kListCapacity = 32768;

}  // namespace

// Two lists, account run writing one while the other is the published one:
// killed while writing, it leaves the last whole list published.
struct RunGuard::List {
  uint32_t published;  // 0 or 1, atomically
  uint32_t count[2];
  pid_t pids[2][kListCapacity];
};

namespace {

// What the guard without process events does once account run died: the last
// published members, and every process they started (tree_stop.h).
[[noreturn]] void kill_listed(const RunGuard::List& list) {
  uint32_t at = __atomic_load_n(&list.published, __ATOMIC_ACQUIRE) & 1;
  uint32_t n = list.count[at] < kListCapacity ? list.count[at] : kListCapacity;
  std::vector<pid_t> members(list.pids[at], list.pids[at] + n);
  stop_and_kill(members, std::chrono::milliseconds(300));
  _exit(0);
}

constexpr int kFollowEveryMs = 100;

// Drains the waiting events into `members`.
void follow(ProcEvents& events, TreeMembers* members) {
  ProcEvent e;
  while (events.next(&e)) members->follow(e);
}

// Kills every member; then those the members forked before they died, until
// 100 ms pass without a new one (a fork racing a SIGKILL is undone by the
// kernel, so the tree cannot outgrow this). Other processes' events do not
// count: on a busy machine they never pause.
void kill_tree(ProcEvents& events, TreeMembers* members) {
  std::unordered_set<pid_t> killed;
  auto quiet_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (std::chrono::steady_clock::now() <= quiet_until) {
    follow(events, members);
    bool more = false;
    for (pid_t pid : members->pids())
      if (killed.insert(pid).second) {
        kill(pid, SIGKILL);
        more = true;
      }
    if (more) quiet_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    pollfd p{events.fd(), POLLIN, 0};
    poll(&p, 1, 10);
  }
}

[[noreturn]] void guard(ProcEvents* events, int run_fd, pid_t run, const RunGuard::List* list) {
  setsid();  // no terminal's INT, QUIT or HUP reaches it
  prctl(PR_SET_NAME, "account-guard", 0, 0, 0);
  close_descriptors_except([&](int fd) {
    return fd == run_fd || (events && fd == events->fd());
  });  // holds no pipe a reader of the run waits on
  TreeMembers members;
  members.add(run);
  for (;;) {
    // The events are read in batches, every kFollowEveryMs (the socket holds
    // 64 MiB of them), as account run reads its own: a guard woken by each
    // took a wake-up on the other core for every fork, exec and exit of the
    // machine, three for each process the command started. The run's end
    // still wakes it at once.
    pollfd p{run_fd, POLLIN, 0};
    if (poll(&p, 1, events ? kFollowEveryMs : -1) < 0 && errno != EINTR) _exit(1);
    if (events) follow(*events, &members);
    if (p.revents) {
      char c = 0;
      if (recv(run_fd, &c, 1, 0) == 1 && c == kOnPurpose) _exit(0);
      if (!events) kill_listed(*list);
      members.remove(run);
      members.remove(getpid());
      kill_tree(*events, &members);
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
  // Shared with the guard; pages never written cost nothing.
  void* shared =
      mmap(nullptr, sizeof(List), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  List* list = shared == MAP_FAILED ? nullptr : static_cast<List*>(shared);
  pid_t run = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    close(pair[0]);
    // Forked again and orphaned: the guard is no child of the run, so its
    // samplers and waits never meet it.
    if (fork() != 0) _exit(0);
    ProcEvents events;
    // Subscribed before the run's first child: every fork of the tree is seen.
    if (events.ok()) {
      if (list) munmap(list, sizeof(List));
      if (send(pair[1], &kReady, 1, MSG_NOSIGNAL) != 1) _exit(1);
      guard(&events, pair[1], run, nullptr);
    }
    if (!list || send(pair[1], &kReadyByList, 1, MSG_NOSIGNAL) != 1) _exit(1);
    guard(nullptr, pair[1], run, list);
  }
  close(pair[1]);
  if (pid < 0) {
    error_ = std::strerror(errno);
    close(pair[0]);
    if (list) munmap(list, sizeof(List));
    return;
  }
  waitpid(pid, nullptr, 0);
  pollfd p{pair[0], POLLIN, 0};
  char c = 0;
  if (poll(&p, 1, 2000) != 1 || recv(pair[0], &c, 1, 0) != 1 ||
      (c != kReady && c != kReadyByList)) {
    error_ = "the guard did not start";
    close(pair[0]);
    if (list) munmap(list, sizeof(List));
    return;
  }
  fd_ = pair[0];
  if (c == kReady && list)
    munmap(list, sizeof(List));
  else
    list_ = list;
}

void RunGuard::publish(pid_t command, const std::vector<pid_t>& live) {
  if (!by_list()) return;
  if (!published_.empty() && published_[0] == command &&
      std::equal(live.begin(), live.end(), published_.begin() + 1, published_.end()))
    return;
  published_.assign(1, command);
  published_.insert(published_.end(), live.begin(), live.end());
  uint32_t at = 1 - (__atomic_load_n(&list_->published, __ATOMIC_RELAXED) & 1);
  size_t n = std::min(published_.size(), kListCapacity);
  std::copy(published_.begin(), published_.begin() + long(n), list_->pids[at]);
  list_->count[at] = uint32_t(n);
  __atomic_store_n(&list_->published, at, __ATOMIC_RELEASE);
}

RunGuard::~RunGuard() {
  if (list_) munmap(list_, sizeof(List));
  if (fd_ < 0) return;
  send(fd_, &kOnPurpose, 1, MSG_NOSIGNAL);
  close(fd_);
}

}  // namespace account
