/// Reading a process's children from /proc (/proc/PID/task/TID/children):
/// the tree walk's only source of who forked whom.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace account {

/// A process's children file (/proc/PID/task/PID/children) and its task
/// directory, kept open between ticks. Each read is one pread; every
/// kSlowEvery-th adds an fstat (its link count tells a single-threaded
/// process) and, for one with threads, every thread's file. The walk reads it
/// in a tick that follows a fork, and every kSlowEvery ticks (known_children).
struct ChildrenFile {
  int task_fd = -1;
  int children_fd = -1;
  uint64_t reads = 0;
  bool holds(int fd) const { return fd >= 0 && (fd == task_fd || fd == children_fd); }
  void close();
};

/// The children of `pid`, through `file` (opened at the first read when
/// `may_keep_open`, else read the long way as children_of does).
std::vector<pid_t> read_children(pid_t pid, ChildrenFile* file, bool may_keep_open);

/// Children of every thread of `pid` (from /proc/PID/task/TID/children).
std::vector<pid_t> children_of(pid_t pid);

/// The pids of a children file's text ("123 456 "), appended to `out`.
void add_children_text(const char* text, std::vector<pid_t>* out);

}  // namespace account
