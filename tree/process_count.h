/// The processes of a tree, counted, and of those the ones without the shim.
/// A pid names one process at a time only: over a long run the kernel hands
/// each out again once it has handed out every other (pid_max: 32768 on many
/// machines, seconds of a test suite's forks), so a count of distinct pids
/// falls short. Each sighting carries a time at which its process existed
/// (a tick's, an image's start, a fork's), all on CLOCK_MONOTONIC, and a pid
/// names a new process when it is seen:
/// - in an image file that started after the process under it was seen to
///   end, or in a fork after that process was last seen;
/// - or after `quiet_ns` without a sighting while the sampler followed no
///   process of that pid (a process it follows is seen at every tick; one it
///   does not follow lived less than a tick or two). A tick's walk alone
///   never tells more: an ended process is walked as long as it is an
///   unreaped zombie.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace account {

class ProcessCount {
 public:
  /// A process of the tree under `pid` existed at `at_ns`: a tick's walk
  /// found it, or (`image`) an image of it started then. `followed`: the
  /// sampler follows a process of that pid that has not ended (then it is that one).
  void seen(pid_t pid, uint64_t at_ns, bool followed, uint64_t quiet_ns, bool image = false);
  /// The kernel's process events: `pid` was forked into the tree at
  /// `fork_ns` by `parent`, and exec'd at `exec_ns`.
  void forked(pid_t pid, uint64_t fork_ns, pid_t parent = 0);
  void execed(pid_t pid, uint64_t exec_ns);
  /// The process under `pid` was seen to have ended by `at_ns`.
  void ended(pid_t pid, uint64_t at_ns);
  /// The process now under `pid` had the shim (it made an image file).
  void shimmed(pid_t pid);
  /// Its image file was lost: counted as without the shim after all.
  void unshimmed(pid_t pid);
  /// The process now under `pid` is not one of the tree's (a sampler of the shim's).
  void forget(pid_t pid);
  /// The pids the kernel's events showed each parent fork (the latest
  /// process under each pid), for claim_unnamed_image.
  using Forks = std::unordered_map<pid_t, std::vector<pid_t>>;
  Forks forks_by_parent() const;
  /// An image that named itself by a pid namespace's pids, and that began and
  /// ended before the sampler could place it, was a child of `parent` (the
  /// run's pid) from before `start_ns` (its start): the latest child `forks`
  /// shows `parent` fork by then that made no image file of its own and was
  /// still running then had the shim. Its run's pid, or 0 when there is none.
  pid_t claim_unnamed_image(const Forks& forks, pid_t parent, uint64_t start_ns);
  /// Whether the process under `pid` was running at `at_ns`.
  bool running_at(pid_t pid, uint64_t at_ns) const;

  uint64_t processes() const { return earlier_ + current_.size(); }
  uint64_t without_shim() const;

 private:
  struct Process {
    uint64_t last_ns = 0;   // the latest time it was known to exist
    uint64_t ended_ns = 0;  // seen ended by then (0: not seen to end)
    uint64_t born_ns = 0;   // its fork, or when it was first known
    bool shim = false;      // it made an image file
    bool file_lost = false;
    // From the kernel's events: its parent, and whether it exec'd.
    pid_t parent = 0;
    bool execed = false;
  };
  static Process born_at(uint64_t at_ns);
  // A new process under the pid, replacing *p (which stays counted).
  void begin_new(Process* p, uint64_t at_ns);
  // One that made no image file had the shim all the same when it never
  // exec'd and its parent had it: it ran its parent's program, in its
  // parent's memory (a vfork child whose exec failed: Python's subprocess
  // of a missing program), or was killed before its own image was set up;
  // what it did counted in its parent's image.
  bool had_shim(const Process& p) const;

  std::unordered_map<pid_t, Process> current_;  // the latest process under each pid
  uint64_t earlier_ = 0;                        // processes whose pid was handed out again
  uint64_t earlier_without_shim_ = 0;
};

}  // namespace account
