/// The kernel's process events (the netlink proc connector): every fork, exec
/// and exit on the machine as it happens, with the parent and child tgid, so a
/// watcher knows the members of a process tree exactly, even children that
/// live a millisecond. Listening needs CAP_NET_ADMIN (root) and the initial
/// network namespace.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace account {

struct ProcEvent {
  enum Kind { kFork, kExec, kExit } kind;
  pid_t pid = 0;              ///< the process (tgid): the child for kFork
  pid_t parent = 0;           ///< kFork: the parent's tgid
  int exit_status = 0;        ///< kExit: the raw wait status
  uint64_t monotonic_ns = 0;  ///< when it happened (CLOCK_MONOTONIC)
};

class ProcEvents {
 public:
  /// Subscribes; on failure ok() is false and error() says why (EPERM
  /// without root).
  ProcEvents();
  ~ProcEvents();
  ProcEvents(const ProcEvents&) = delete;
  ProcEvents& operator=(const ProcEvents&) = delete;

  bool ok() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }
  /// Readable when events wait (non-blocking).
  int fd() const { return fd_; }
  /// The next waiting event of a process (thread events are skipped); false
  /// when none waits. Events lost to a full socket buffer set lost().
  bool next(ProcEvent* event);
  /// True once the kernel dropped events (the socket buffer overflowed).
  bool lost() const { return lost_; }

 private:
  bool fill();
  int fd_ = -1;
  std::string error_;
  bool lost_ = false;
  alignas(8) char buf_[16384];
  size_t len_ = 0, at_ = 0;
};

}  // namespace account
