#include "process_count.h"

namespace account {

void ProcessCount::begin_new(Process* p, uint64_t at_ns) {
  ++earlier_;
  earlier_without_shim_ += p->shim ? 0 : 1;
  *p = Process{at_ns, 0, false};
}

void ProcessCount::seen(pid_t pid, uint64_t at_ns, bool followed, uint64_t quiet_ns, bool image) {
  auto [it, added] = current_.try_emplace(pid, Process{at_ns, 0, false});
  if (added) return;
  Process& p = it->second;
  bool after_end = image && p.ended_ns != 0 && at_ns > p.ended_ns;
  bool after_quiet = !followed && at_ns > p.last_ns + quiet_ns;
  if (after_end || after_quiet)
    begin_new(&p, at_ns);
  else if (at_ns > p.last_ns)
    p.last_ns = at_ns;
}

void ProcessCount::forked(pid_t pid, uint64_t fork_ns) {
  auto [it, added] = current_.try_emplace(pid, Process{fork_ns, 0, false});
  // Last seen before this fork: an earlier process under the pid. (Seen
  // after it: this one, met before its fork event was read.)
  if (!added && it->second.last_ns < fork_ns) begin_new(&it->second, fork_ns);
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
  if (it != current_.end()) it->second.shim = false;
}

void ProcessCount::forget(pid_t pid) {
  current_.erase(pid);
}

uint64_t ProcessCount::without_shim() const {
  uint64_t n = earlier_without_shim_;
  for (const auto& [pid, p] : current_) n += p.shim ? 0 : 1;
  return n;
}

}  // namespace account
