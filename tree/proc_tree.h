/// What the tree walk asks of /proc beyond one process's own files
/// (ProcReader): a process's children, a descriptor that says when it ended,
/// and whether a pid still names a live process. Behind an interface so the
/// walk and the tick can be tested through a fake /proc (tests/tree/fake_tree.h).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "children_files.h"
#include "proc_files.h"

namespace account {

class ProcTree {
 public:
  /// The children of `pid` through `file` (kept open when `may_keep_open`).
  virtual std::vector<pid_t> children(pid_t pid, ChildrenFile* file, bool may_keep_open);
  /// The children of every thread of `pid`, read once.
  virtual std::vector<pid_t> all_children(pid_t pid);
  /// A descriptor that polls readable once `pid` has ended (its pidfd); -1
  /// when it is gone already.
  virtual int open_pidfd(pid_t pid);
  /// One read of `pid`'s stat, for a pid with no ProcHandle open; false when
  /// it is gone.
  virtual bool stat(pid_t pid, CpuAndExit* out);
  /// `pid`'s pid in a pid namespace below the one of this /proc (its own
  /// /proc's: what an image there names itself by); 0 when it is in this
  /// /proc's namespace, or gone.
  virtual pid_t nested_pid(pid_t pid);
  /// True while `pid` names a process that has not ended (not a zombie).
  bool running(pid_t pid);
  /// Every process of the machine (the numbered entries of /proc).
  virtual std::vector<pid_t> all_pids();
  /// The path of `pid`'s executable ("" when it cannot be read).
  virtual std::string exe(pid_t pid);
  /// `pid`'s command line, its arguments NUL-separated ("" when it cannot be read).
  virtual std::string cmdline(pid_t pid);

 protected:
  ~ProcTree() = default;
};

/// The real /proc.
ProcTree& system_tree();

}  // namespace account
