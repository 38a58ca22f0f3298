#include "tree_census.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "proc_files.h"
#include "proc_reader.h"
#include "proc_text.h"

namespace account {

namespace {
uint64_t children_ns(const CpuAndExit& s) {
  return s.children_user_ns + s.children_sys_ns;
}
}  // namespace

TreeCensus::TreeCensus(uint64_t loadavg_last_pid) : first_pid_(loadavg_last_pid) {}

void TreeCensus::found(pid_t pid, const CpuAndExit& stat, bool born_in_watch) {
  members_.add(pid);
  auto [it, fresh] = procs_.try_emplace(pid);
  if (!fresh && it->second.ended) {
    // Its pid handed out again (a long watch wraps pid_max): a new process,
    // the ended one kept for the count and the CPU.
    retired_.push_back(it->second);
    it->second = Proc{};
    fresh = true;
  }
  if (fresh) {
    it->second.born = born_in_watch;
    it->second.children_base_ns = born_in_watch ? 0 : children_ns(stat);
    if (forked_.erase(pid)) ++forks_recorded_;
  }
  reading(pid, stat);
}

void TreeCensus::reading(pid_t pid, const CpuAndExit& stat) {
  auto it = procs_.find(pid);
  if (it == procs_.end() || !stat.valid) return;
  Proc& p = it->second;
  p.children_ns = std::max(p.children_ns, children_ns(stat));
  p.cpu_ns = std::max(p.cpu_ns, stat.user_ns + stat.sys_ns);
  p.ppid = stat.ppid;
  p.start_ticks = stat.start_ticks;
}

void TreeCensus::ended(pid_t pid) {
  auto it = procs_.find(pid);
  if (it != procs_.end()) it->second.ended = true;
}

void TreeCensus::find_unreaped(ProcTree& proc) {
  for (auto& [pid, p] : procs_) {
    if (!p.ended) continue;
    CpuAndExit now;
    p.reaped = !(proc.stat(pid, &now) && now.state == 'Z' && now.start_ticks == p.start_ticks);
  }
}

bool TreeCensus::fork(pid_t parent, pid_t child) {
  if (!members_.fork(parent, child)) return false;
  ++forks_;
  if (procs_.count(child))  // a tick saw it before its fork event was read
    ++forks_recorded_;
  else
    forked_.insert(child);
  return true;
}

uint64_t TreeCensus::unseen_bound(uint64_t last_pid, uint64_t pid_max) const {
  uint64_t handed_out =
      last_pid >= first_pid_ ? last_pid - first_pid_ : pid_max - first_pid_ + last_pid;  // wrapped
  uint64_t born = 0;
  for (auto& [pid, p] : procs_) born += p.born;
  for (const Proc& p : retired_) born += p.born;
  return handed_out > born ? handed_out - born : 0;
}

uint64_t TreeCensus::unseen_cpu_ns() const {
  uint64_t grown = 0, recorded = 0;
  auto add = [&](const Proc& p) {
    grown += p.children_ns > p.children_base_ns ? p.children_ns - p.children_base_ns : 0;
    // A reaped child adds its CPU and its own cutime+cstime (what it reaped)
    // to its parent's: that much of the parent's growth is recorded already
    // (its CPU in its record; what it reaped in its own term above). Only a
    // parent in the tree that reaped it counts it (an orphan's goes to
    // whoever adopted it).
    if (p.ended && p.reaped && procs_.count(p.ppid)) recorded += p.cpu_ns + p.children_ns;
  };
  for (auto& [pid, p] : procs_) add(p);
  for (const Proc& p : retired_) add(p);
  return grown > recorded ? grown - recorded : 0;
}

uint64_t loadavg_last_pid() {
  int fd = -1;
  uint64_t pid = 0;
  bool read = system_proc().last_pid(&fd, &pid);
  if (fd >= 0) close(fd);
  return read ? pid : 0;
}

uint64_t system_pid_max() {
  uint64_t v = std::strtoull(read_proc_text("/proc/sys/kernel/pid_max").c_str(), nullptr, 10);
  return v ? v : 4194304;
}

}  // namespace account
