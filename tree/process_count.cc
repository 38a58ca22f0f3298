#include "process_count.h"

namespace account {

ProcessCount::Process ProcessCount::born_at(uint64_t at_ns) {
  Process p;
  p.last_ns = p.born_ns = at_ns;
  return p;
}

void ProcessCount::begin_new(Process* p, uint64_t at_ns) {
  ++earlier_;
  earlier_without_shim_ += had_shim(*p) ? 0 : 1;
  *p = born_at(at_ns);
}

bool ProcessCount::had_shim(const Process& p) const {
  if (p.shim) return true;
  if (p.file_lost || p.parent == 0 || p.execed) return false;
  auto parent = current_.find(p.parent);
  return parent != current_.end() && parent->second.shim && parent->second.born_ns <= p.born_ns;
}

void ProcessCount::seen(pid_t pid, uint64_t at_ns, bool followed, uint64_t quiet_ns, bool image) {
  auto [it, added] = current_.try_emplace(pid, born_at(at_ns));
  if (added) return;
  Process& p = it->second;
  bool after_end = image && p.ended_ns != 0 && at_ns > p.ended_ns;
  bool after_quiet = !followed && at_ns > p.last_ns + quiet_ns;
  if (after_end || after_quiet)
    begin_new(&p, at_ns);
  else if (at_ns > p.last_ns)
    p.last_ns = at_ns;
}

void ProcessCount::forked(pid_t pid, uint64_t fork_ns, pid_t parent) {
  auto [it, added] = current_.try_emplace(pid, born_at(fork_ns));
  Process& p = it->second;
  // Last seen before this fork: an earlier process under the pid. (Seen
  // after it: this one, met before its fork event was read.)
  if (!added && p.last_ns < fork_ns) begin_new(&p, fork_ns);
  p.born_ns = fork_ns;
  p.parent = parent;
}

void ProcessCount::execed(pid_t pid, uint64_t exec_ns) {
  auto it = current_.find(pid);
  // Not an exec of an earlier process under the pid (events are read in
  // batches: a tick may have met the next one first).
  if (it != current_.end() && exec_ns >= it->second.born_ns) it->second.execed = true;
}

void ProcessCount::ended(pid_t pid, uint64_t at_ns) {
  auto it = current_.find(pid);
  if (it != current_.end() && it->second.ended_ns == 0) it->second.ended_ns = at_ns;
}

void ProcessCount::shimmed(pid_t pid) {
  auto it = current_.find(pid);
  if (it != current_.end()) it->second.shim = true;
}

void ProcessCount::unshimmed(pid_t pid) {
  auto it = current_.find(pid);
  if (it != current_.end()) it->second.shim = false, it->second.file_lost = true;
}

void ProcessCount::forget(pid_t pid) {
  current_.erase(pid);
}

ProcessCount::Forks ProcessCount::forks_by_parent() const {
  Forks forks;
  for (const auto& [pid, p] : current_)
    if (p.parent != 0) forks[p.parent].push_back(pid);
  return forks;
}

pid_t ProcessCount::claim_unnamed_image(const Forks& forks, pid_t parent, uint64_t start_ns) {
  Process* latest = nullptr;
  pid_t latest_pid = 0;
  auto children = forks.find(parent);
  if (children == forks.end()) return 0;
  for (pid_t pid : children->second) {
    auto it = current_.find(pid);
    if (it == current_.end()) continue;
    Process& p = it->second;
    if (p.parent != parent || p.shim || p.file_lost || p.born_ns > start_ns) continue;
    if (p.ended_ns != 0 && p.ended_ns < start_ns) continue;
    if (!latest || p.born_ns > latest->born_ns) latest = &p, latest_pid = pid;
  }
  if (latest) latest->shim = true;
  return latest_pid;
}

bool ProcessCount::running_at(pid_t pid, uint64_t at_ns) const {
  auto it = current_.find(pid);
  return it != current_.end() && it->second.born_ns <= at_ns &&
         (it->second.ended_ns == 0 || it->second.ended_ns >= at_ns);
}

uint64_t ProcessCount::without_shim() const {
  uint64_t n = earlier_without_shim_;
  for (const auto& [pid, p] : current_) n += had_shim(p) ? 0 : 1;
  return n;
}

}  // namespace account
