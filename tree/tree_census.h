/// Who belongs to a watched tree and what no record shows: the processes of
/// the tree that ended before any tick saw them, and their CPU.
///
/// Processes. With the proc connector (proc_events.h) every fork whose parent
/// is a member makes the child a member, so the count of forks is exact and
/// unseen = forks − forked processes recorded. Without it, the growth of
/// /proc/loadavg's last pid bounds it from above (it counts every pid the
/// system handed out: threads and other programs too).
///
/// CPU. A parent's cutime+cstime grows by the CPU of each child it reaps
/// (including the grandchildren that child reaped). So the CPU of the children
/// reaped within the tree is the growth, over the watch, of the cutime+cstime
/// of every recorded process (a process already running when the watch began
/// from its first reading, one born during the watch from 0). A recorded child
/// reaped by a recorded parent put its CPU and its whole cutime+cstime into
/// the parent's: subtracted (its CPU is in its record, what it reaped in its
/// own growth). What is left is the CPU of the reaped children no record
/// shows, with everything they reaped. Each term is in clock ticks
/// (1/USER_HZ), truncated: the result is within one tick per recorded process.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "proc_files.h"
#include "proc_tree.h"
#include "tree_members.h"

namespace account {

class TreeCensus {
 public:
  /// The first pid the system had not handed out yet (from /proc/loadavg).
  explicit TreeCensus(uint64_t loadavg_last_pid);

  /// A process was recorded: first sight (or a new image after exec).
  /// `born_in_watch`: it started after the watch began.
  void found(pid_t pid, const CpuAndExit& stat, bool born_in_watch);
  /// A later reading of a recorded process (the last one before it ended counts).
  void reading(pid_t pid, const CpuAndExit& stat);
  /// A recorded process ended.
  void ended(pid_t pid);
  /// At the end of the watch: a process that ended and is still a zombie has
  /// not been reaped, so its CPU is in no parent's cutime yet.
  void find_unreaped(ProcTree& proc = system_tree());
  bool recorded(pid_t pid) const { return procs_.count(pid) != 0; }
  /// Processes recorded (a pid handed out again in a long watch names another).
  uint64_t processes() const { return procs_.size() + retired_.size(); }

  /// Connector events. Returns true when the child is a member (a fork in
  /// the tree): the watch then starts watching it at once.
  bool fork(pid_t parent, pid_t child);
  void exit(pid_t pid) { members_.remove(pid); }
  bool member(pid_t pid) const { return members_.has(pid); }

  /// With the connector (and no event lost): exact.
  uint64_t unseen_exact() const { return forks_ - forks_recorded_; }
  /// Without: forks by anyone since the watch began, minus the processes born
  /// in the watch that were recorded.
  uint64_t unseen_bound(uint64_t loadavg_last_pid, uint64_t pid_max) const;
  /// CPU of the processes reaped within the tree that no record holds (never
  /// negative: the tick rounding of the terms can make the difference so).
  uint64_t unseen_cpu_ns() const;

 private:
  struct Proc {
    uint64_t children_base_ns = 0, children_ns = 0;  // cutime+cstime
    uint64_t cpu_ns = 0;                             // utime+stime, last reading
    pid_t ppid = 0;
    uint64_t start_ticks = 0;
    bool born = false;
    bool ended = false;
    bool reaped = true;
  };
  std::map<pid_t, Proc> procs_;  // recorded processes, the latest under each pid
  std::vector<Proc> retired_;    // ended ones whose pid a later process took
  TreeMembers members_;          // live members, for the connector's forks
  std::set<pid_t> forked_;       // forked in the tree, not recorded yet
  uint64_t forks_ = 0, forks_recorded_ = 0;
  uint64_t first_pid_;
};

/// The last pid the system handed out (the 5th field of /proc/loadavg).
uint64_t loadavg_last_pid();
/// /proc/sys/kernel/pid_max.
uint64_t system_pid_max();

}  // namespace account
