/// account run's signals. SIGINT, SIGTERM and SIGHUP are blocked and read from
/// a signalfd in run's poll loop, to be passed on to the command's tree;
/// SIGQUIT is ignored as system() does (Ctrl-\ reaches the command from the
/// terminal). A signal that was ignored when account run started (nohup, a
/// background job of a non-interactive shell) stays ignored and is not caught.
/// The command and --prepare start with the signal mask and the dispositions
/// account run itself started with.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <vector>

namespace account {

/// What a child of account run is given back before its exec.
struct ChildSignals {
  sigset_t mask;                // the mask account run started with
  std::vector<int> to_default;  // signals account run ignores that the child must not
};

class RunSignals {
 public:
  RunSignals();  // blocks and opens the signalfd, ignores SIGQUIT
  ~RunSignals();
  RunSignals(const RunSignals&) = delete;
  RunSignals& operator=(const RunSignals&) = delete;

  /// Readable when a signal is pending (-1 if none could be opened).
  int fd() const { return fd_; }
  /// The next pending signal, or 0 (never blocks).
  int take();
  const ChildSignals& child() const { return child_; }
  /// Undoes the constructor in this process (a forked helper that outlives run).
  void restore() const;

 private:
  int fd_ = -1;
  sigset_t caught_;
  bool quit_ignored_ = false;  // SIGQUIT was ignored at start
  ChildSignals child_;
};

/// Passes `sig` to the command and to every live process of its tree
/// (each pid once; zombies and pids <= 0 are skipped).
void forward_signal(int sig, pid_t command, const std::vector<pid_t>& tree);

}  // namespace account
