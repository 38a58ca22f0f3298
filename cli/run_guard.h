/// The guard of `account run`: a process outside the run's tree that follows
/// the tree's members through the kernel's process events and, when account
/// run dies without saying it ends on purpose (SIGKILL), kills every one of
/// them: the command and whatever it had started (docs/security.md).
#pragma once

#include <string>

namespace account {

class RunGuard {
 public:
  /// Starts the guard of the calling process's future descendants. Call it
  /// before the first child and before PR_SET_CHILD_SUBREAPER (the guard is
  /// no child of the run). Without process events (no CAP_NET_ADMIN, not the
  /// initial network namespace) there is no guard and error() says why.
  RunGuard();
  /// Tells the guard the run ends on purpose: processes that outlive it
  /// (daemons) live on.
  ~RunGuard();
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;

  const std::string& error() const { return error_; }

 private:
  int fd_ = -1;  // the run's end of a socket pair; its close without a byte is the run's death
  std::string error_;
};

}  // namespace account
