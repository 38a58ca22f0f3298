// account-guard: the guard of one `account run` (run_guard.h), a small
// static program of its own, so that starting it costs the exec and the fork
// of a small process instead of two forks of `account`. account run starts it
// with the descriptors of guard_protocol.h, its own pid as the one argument,
// no environment and /dev/null on 0-2; the guard forks once and its parent
// exits, so that it is no child of the run (the run's samplers and waits never
// meet it).
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <unordered_set>
#include <vector>

#include "guard_protocol.h"
#include "proc_events.h"
#include "tree_members.h"
#include "tree_stop.h"

using namespace account;

namespace {

// What the guard without process events does once account run died: the last
// published members, and every process they started (tree_stop.h).
[[noreturn]] void kill_listed(const GuardList& list) {
  uint32_t at = __atomic_load_n(&list.published, __ATOMIC_ACQUIRE) & 1;
  uint32_t n = list.count[at] < kGuardListCapacity ? list.count[at] : kGuardListCapacity;
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

[[noreturn]] void guard(ProcEvents* events, pid_t run, const GuardList* list) {
  TreeMembers members;
  members.add(run);
  for (;;) {
    // The events are read in batches, every kFollowEveryMs (the socket holds
    // 64 MiB of them), as account run reads its own: a guard woken by each
    // took a wake-up on the other core for every fork, exec and exit of the
    // machine, three for each process the command started. The run's end
    // still wakes it at once.
    pollfd p{kGuardSocketFd, POLLIN, 0};
    if (poll(&p, 1, events ? kFollowEveryMs : -1) < 0 && errno != EINTR) _exit(1);
    if (events) follow(*events, &members);
    if (p.revents) {
      char c = 0;
      if (recv(kGuardSocketFd, &c, 1, 0) == 1 && c == kGuardOnPurpose) _exit(0);
      if (!events) kill_listed(*list);
      members.remove(run);
      members.remove(getpid());
      kill_tree(*events, &members);
      _exit(0);
    }
  }
}

bool is_socket(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace

int main(int argc, char** argv) {
  char* end = nullptr;
  long run = argc == 2 ? strtol(argv[1], &end, 10) : 0;
  if (run <= 0 || *end != '\0' || !is_socket(kGuardSocketFd)) {
    fprintf(stderr, "account-guard: started by account run only (it guards that run's tree)\n");
    return 2;
  }
  // Forked and orphaned: the guard is no child of the run.
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid != 0) _exit(0);
  prctl(PR_SET_NAME, "account-guard", 0, 0, 0);
  ProcEvents events;
  // Subscribed before the run's first child: every fork of the tree is seen.
  if (events.ok()) {
    close(kGuardListFd);
    if (send(kGuardSocketFd, &kGuardReady, 1, MSG_NOSIGNAL) != 1) _exit(1);
    guard(&events, pid_t(run), nullptr);
  }
  void* list = mmap(nullptr, sizeof(GuardList), PROT_READ, MAP_SHARED, kGuardListFd, 0);
  close(kGuardListFd);
  if (list == MAP_FAILED || send(kGuardSocketFd, &kGuardReadyByList, 1, MSG_NOSIGNAL) != 1)
    _exit(1);
  guard(nullptr, pid_t(run), static_cast<const GuardList*>(list));
}
