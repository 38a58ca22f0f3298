#include "tree_stop.h"

#include <signal.h>
#include <unistd.h>

#include <string>
#include <unordered_set>

#include "proc_files.h"

namespace account {

namespace {

bool held(char state) {  // stopped, or past forking
  return state == 'T' || state == 't' || state == 'Z' || state == 'X';
}

}  // namespace

size_t stop_and_kill(const std::vector<pid_t>& members, std::chrono::milliseconds within,
                     ProcTree& proc) {
  std::unordered_set<pid_t> tree;     // whose children are the tree's
  std::unordered_set<pid_t> stopped;  // those SIGSTOP reached (this user's)
  auto add = [&](pid_t pid) {
    if (pid <= 1 || pid == getpid() || !tree.insert(pid).second) return;
    if (kill(pid, SIGSTOP) == 0) stopped.insert(pid);
  };
  for (pid_t pid : members) add(pid);
  auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    bool grew = false, settled = true;
    for (pid_t pid : proc.all_pids()) {
      CpuAndExit stat;
      if (!proc.stat(pid, &stat)) continue;
      if (stopped.count(pid)) {
        settled = settled && held(stat.state);
      } else if (!tree.count(pid) && tree.count(stat.ppid)) {
        add(pid);
        grew = true;
      }
    }
    if ((!grew && settled) || std::chrono::steady_clock::now() >= deadline) break;
    usleep(1000);
  }
  size_t killed = 0;
  for (pid_t pid : tree) killed += kill(pid, SIGKILL) == 0;
  return killed;
}

}  // namespace account
