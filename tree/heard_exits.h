/// How the tree's processes ended, as the kernel's process events told it
/// (proc_events.h, root only): the one source left for a process its parent
/// reaped before any sampler looked at it (no zombie, no pidfd), such as a
/// program that ends with the exit_group system call itself (Go's runtime)
/// and so never writes its own record.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstddef>
#include <functional>

#include "ending.h"
#include "proc_reader.h"
#include "sampling.h"

namespace account {

class HeardExits {
 public:
  /// Called before a lookup: reads the events waiting (they are read only
  /// every few ticks otherwise). It must not call back into the tree sampler.
  void read_first_with(std::function<void()> read) { read_ = std::move(read); }

  /// A member of the tree forked as `pid`: a new process, whatever ended
  /// under that pid before is not it.
  void forked(pid_t pid) { push(pid, false, 0); }
  /// A member ended with this raw wait status.
  void exited(pid_t pid, int wait_status) { push(pid, true, wait_status); }

  /// The latest status heard for `pid` since its fork; false when none was.
  bool status_of(pid_t pid, int* wait_status);

 private:
  struct Heard {
    pid_t pid = 0;
    bool exit = false;
    int status = 0;
  };
  void push(pid_t pid, bool exit, int status);

  // The latest events, newest at next_ - 1: a process is looked up within a
  // few ticks of its end, long before this many of the tree's processes follow it.
  static constexpr size_t kKept = 4096;
  std::array<Heard, kKept> ring_{};
  size_t next_ = 0, size_ = 0;
  std::function<void()> read_;
};

/// classify_death, then what the events heard where that knows no cause (and
/// `heard` is not null): the rule of every record the tree's samplers write.
Ending classify_tree_death(ProcReader& proc, ProcessWatch* w, pid_t pid, Writer writer,
                           HeardExits* heard);

}  // namespace account
