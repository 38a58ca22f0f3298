/// Who belongs to a process tree, followed through the kernel's process
/// events (proc_events.h): a fork by a member makes the child a member, an
/// exit ends its membership. The one rule the run's guard, account run's
/// count of its processes and account watch --tree's census follow.
#pragma once

#include <sys/types.h>

#include <unordered_set>

#include "proc_events.h"

namespace account {

class TreeMembers {
 public:
  void add(pid_t pid) { pids_.insert(pid); }
  void remove(pid_t pid) { pids_.erase(pid); }
  bool has(pid_t pid) const { return pids_.count(pid) != 0; }
  /// A fork: true when the parent is a member, and the child is one now.
  bool fork(pid_t parent, pid_t child) {
    if (!has(parent)) return false;
    add(child);
    return true;
  }
  /// Follows one event; true when it was a fork into the tree.
  bool follow(const ProcEvent& e) {
    if (e.kind == ProcEvent::kFork) return fork(e.parent, e.pid);
    if (e.kind == ProcEvent::kExit) remove(e.pid);
    return false;
  }
  const std::unordered_set<pid_t>& pids() const { return pids_; }

 private:
  std::unordered_set<pid_t> pids_;
};

}  // namespace account
