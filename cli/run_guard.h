/// The guard of `account run`: a process outside the run's tree (the
/// account-guard helper, guard_main.cc) that knows the tree's members and,
/// when account run dies without saying it ends on purpose (SIGKILL), kills
/// every one of them: the command and whatever it had started
/// (docs/security.md). It follows them through the kernel's process events
/// where it may (root), otherwise through the list of live members account
/// run publishes at each turn of its loop and, at the end, /proc.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace account {

struct GuardList;

class RunGuard {
 public:
  /// Starts the guard of the calling process's future descendants, without
  /// waiting for it: the run prepares its first child meanwhile, and calls
  /// ready_for_children() before it.
  RunGuard();
  /// Tells the guard the run ends on purpose: processes that outlive it
  /// (daemons) live on.
  ~RunGuard();
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;

  /// Waits until the guard follows the tree (its first process exited and it
  /// said it is ready), or failed: error() then says why (no account-guard
  /// next to account: shim_location.h). True on the call that waited.
  bool await();
  const std::string& error() const { return error_; }
  /// True when the guard knows the tree only by what publish() tells it (no
  /// process events): the command must then not die with account run
  /// (PR_SET_PDEATHSIG), or its children would leave the tree before the
  /// guard reaches them. Known after await().
  bool by_list() const { return list_ != nullptr && fd_ >= 0; }
  /// The tree's live members now (the command and `live`): what the guard
  /// kills, with their descendants, if account run dies. Cheap when nothing
  /// changed; a no-op with process events.
  void publish(pid_t command, const std::vector<pid_t>& live);

 private:
  std::string path_;
  pid_t starting_ = -1;  // the guard's first process until await() reaped it
  bool awaited_ = false;
  int fd_ = -1;  // the run's end of a socket pair; its close without a byte is the run's death
  GuardList* list_ = nullptr;  // shared with the guard; nullptr with process events
  std::vector<pid_t> published_;
  std::string error_;
};

/// Before each child of the run (a --prepare command, the command): the first
/// time, waits for the guard (one line if there is none) and then makes
/// account run a subreaper, so that orphans come back to it and the tree stays
/// whole. In that order: the guard, orphaned by its first process, is no
/// child of the run.
void ready_for_children(RunGuard& guard);

}  // namespace account
