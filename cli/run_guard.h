/// The guard of `account run`: a process outside the run's tree (the
/// account-guard helper, guard_main.cc) that knows the tree's members and,
/// when account run dies without saying it ends on purpose (SIGKILL), kills
/// every one of them: the command and whatever it had started
/// (docs/security.md). It follows them through the kernel's process events
/// where it may (root), otherwise through the list of live members account
/// run publishes at each turn of its loop and, at the end, /proc.
///
/// The run does not wait for its guard to be ready: the guard is started
/// orphaned (no child of the run; the run waits only for its exec) while the
/// command starts, and catches up with the tree as it finds it. Until the guard says it follows by process events, the run
/// publishes the list in any case, so a run killed before then is still
/// taken down whole.
#pragma once

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace account {

struct GuardList;

class RunGuard {
 public:
  /// Starts the guard of the calling process's future descendants. When it
  /// returns the guard has been started (or error() says why not) and is no
  /// child of this process.
  RunGuard();
  /// Tells the guard the run ends on purpose: processes that outlive it
  /// (daemons) live on. The guard reads it when this process has exited.
  ~RunGuard();
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;

  /// Why the run has no guard ("" while it has one, or may yet): no
  /// account-guard next to account (shim_location.h), a failed start, or a
  /// guard that ended before it said it guards the run.
  const std::string& error() const { return error_; }
  /// True while a guard was started and has not been seen to fail.
  bool started() const { return fd_ >= 0; }
  /// The tree's live members now (the command and `live`): what the guard
  /// kills, with their descendants, if account run dies. Also reads, without
  /// waiting, whether the guard said it follows the tree by process events
  /// (then nothing is published any more) or ended. Cheap when nothing
  /// changed.
  void publish(pid_t command, const std::vector<pid_t>& live);
  /// True on the first call only: the run's first child is about to start.
  bool first_child() { return !std::exchange(had_child_, true); }
  /// Prints the no-guard line, once, if error() says why there is none.
  void say_if_unguarded();

 private:
  void learn();
  void give_up(const std::string& why);

  std::string path_;
  int fd_ = -1;  // the run's end of a socket pair; its close without a byte is the run's death
  bool ready_ = false;         // the guard said it is ready
  GuardList* list_ = nullptr;  // shared with the guard until it follows by process events
  std::vector<pid_t> published_;
  std::string error_;
  bool had_child_ = false;
  bool said_ = false;  // the no-guard line was printed
};

/// Before each child of the run (a --prepare command, the command): the first
/// time, makes account run a subreaper, so that orphans come back to it and
/// the tree stays whole (the guard, started orphaned, is none of them), and
/// says in one line when there is no guard.
void ready_for_children(RunGuard& guard);

}  // namespace account
