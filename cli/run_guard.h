/// The guard of `account run`: a process outside the run's tree (the
/// account-guard helper, guard_main.cc) that knows
/// the tree's members and, when account run dies without saying it ends on
/// purpose (SIGKILL), kills every one of them: the command and whatever it had
/// started (docs/security.md). It follows them through the kernel's process
/// events where it may (root), otherwise through the list of live members
/// account run publishes at each turn of its loop and, at the end, /proc.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace account {

struct GuardList;

class RunGuard {
 public:
  /// Starts the guard of the calling process's future descendants. Call it
  /// before the first child and before PR_SET_CHILD_SUBREAPER (the guard is
  /// no child of the run). If it cannot be started (no account-guard next to
  /// account: shim_location.h), error() says why.
  RunGuard();
  /// Tells the guard the run ends on purpose: processes that outlive it
  /// (daemons) live on.
  ~RunGuard();
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;

  const std::string& error() const { return error_; }
  /// True when the guard knows the tree only by what publish() tells it (no
  /// process events): the command must then not die with account run
  /// (PR_SET_PDEATHSIG), or its children would leave the tree before the
  /// guard reaches them.
  bool by_list() const { return list_ != nullptr && fd_ >= 0; }
  /// The tree's live members now (the command and `live`): what the guard
  /// kills, with their descendants, if account run dies. Cheap when nothing
  /// changed; a no-op with process events.
  void publish(pid_t command, const std::vector<pid_t>& live);

 private:
  int fd_ = -1;  // the run's end of a socket pair; its close without a byte is the run's death
  GuardList* list_ = nullptr;  // shared with the guard; nullptr with process events
  std::vector<pid_t> published_;
  std::string error_;
};

}  // namespace account
