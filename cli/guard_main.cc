// account-guard: the guard of one `account run` (run_guard.h), a small
// static program of its own, so that starting it costs the exec of a small
// process instead of a fork of `account`. account run starts it orphaned,
// with the descriptors of guard_protocol.h, its own pid as the one argument,
// no environment and /dev/null on 0-2, and does not wait for it to be ready:
// the guard catches up with the tree as it finds it (the run's samplers and
// waits never meet it).
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

// The members account run published last (none once it knew the guard
// follows by process events).
std::vector<pid_t> listed(const GuardList& list) {
  uint32_t at = __atomic_load_n(&list.published, __ATOMIC_ACQUIRE) & 1;
  uint32_t n = list.count[at] < kGuardListCapacity ? list.count[at] : kGuardListCapacity;
  return std::vector<pid_t>(list.pids[at], list.pids[at] + n);
}

// What the guard without process events does once account run died: the last
// published members, and every process they started (tree_stop.h).
[[noreturn]] void kill_listed(const GuardList& list) {
  stop_and_kill(listed(list), std::chrono::milliseconds(300));
  _exit(0);
}

// `pid`, if it has not ended, and every live process below it: the tree the
// guard found rather than saw born. Zombies are left out: one that ended
// before the guard subscribed sends no exit event, and its pid may be reused.
void add_tree(pid_t pid, TreeMembers* members) {
  ProcTree& proc = system_tree();
  std::vector<pid_t> todo{pid};
  while (!todo.empty()) {
    pid_t p = todo.back();
    todo.pop_back();
    for (pid_t child : proc.all_children(p))
      if (!members->has(child) && proc.running(child)) {
        members->add(child);
        todo.push_back(child);
      }
  }
  if (proc.running(pid)) members->add(pid);
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

enum class RunState { kLives, kEndsOnPurpose, kDied };

// What the run's socket says now, without waiting: its byte that it ends on
// purpose, nothing yet, or its close (or an error) without that byte.
RunState run_state() {
  char c = 0;
  ssize_t n;
  while ((n = recv(kGuardSocketFd, &c, 1, MSG_DONTWAIT)) < 0 && errno == EINTR) {
  }
  if (n == 1 && c == kGuardOnPurpose) return RunState::kEndsOnPurpose;
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return RunState::kLives;
  return RunState::kDied;
}

[[noreturn]] void guard(ProcEvents* events, pid_t run, const GuardList& list,
                        TreeMembers& members) {
  for (;;) {
    // The events are read in batches, every kFollowEveryMs (the socket holds
    // 64 MiB of them), as account run reads its own: a guard woken by each
    // took a wake-up on the other core for every fork, exec and exit of the
    // machine, three for each process the command started. The run's byte
    // that it ends on purpose wakes nothing either (POLLRDHUP alone): woken
    // by it, the guard's exit took the CPU from account run's last steps.
    // The run's end, its socket's close, wakes it at once.
    pollfd p{kGuardSocketFd, POLLRDHUP, 0};
    if (poll(&p, 1, events ? kFollowEveryMs : -1) < 0 && errno != EINTR) _exit(1);
    if (events) follow(*events, &members);
    switch (run_state()) {
      case RunState::kLives:
        continue;
      case RunState::kEndsOnPurpose:
        _exit(0);
      case RunState::kDied:
        if (!events) kill_listed(list);
        // Published by a run that died before it read that the guard follows
        // by events: what the guard could not find below the run any more
        // (orphaned when it died) is below these.
        for (pid_t pid : listed(list))
          if (!members.has(pid)) add_tree(pid, &members);
        members.remove(run);
        members.remove(getpid());
        kill_tree(*events, &members);
        _exit(0);
    }
  }
}

// account run starts the guard with every signal blocked (no handler of its
// own may run before the exec) and whatever it ignored still ignored: here,
// off the run's path, default handling and none blocked, as any process.
void default_signals() {
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);  // KILL, STOP: refused
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

bool is_socket(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace

int main(int argc, char** argv) {
  default_signals();
  char* end = nullptr;
  long run = argc == 2 ? strtol(argv[1], &end, 10) : 0;
  if (run <= 0 || *end != '\0' || !is_socket(kGuardSocketFd)) {
    fprintf(stderr, "account-guard: started by account run only (it guards that run's tree)\n");
    return 2;
  }
  prctl(PR_SET_NAME, "account-guard", 0, 0, 0);
  void* shared = mmap(nullptr, sizeof(GuardList), PROT_READ, MAP_SHARED, kGuardListFd, 0);
  close(kGuardListFd);
  if (shared == MAP_FAILED) _exit(1);
  const GuardList& list = *static_cast<const GuardList*>(shared);
  // Subscribed first, then the run's tree as it is now: what was born
  // before the subscription is found, what is born after it is seen. Zombies
  // left aside, a process found twice is one member.
  ProcEvents events;
  TreeMembers members;
  members.add(pid_t(run));
  if (events.ok()) add_tree(pid_t(run), &members);
  const char* ready = events.ok() ? &kGuardReady : &kGuardReadyByList;
  // Not sent when the run has died already: the loop finds that at once.
  send(kGuardSocketFd, ready, 1, MSG_NOSIGNAL);
  guard(events.ok() ? &events : nullptr, pid_t(run), list, members);
}
