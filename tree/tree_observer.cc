// TreeSampler watched from outside (account watch --tree): what its observer
// is told of processes that have no image file.
#include "tree_sampler_parts.h"

namespace account {

void TreeSampler::watch_from_outside(TreeObserver* observer) {
  observer_ = observer;
}

void TreeSampler::adopt(pid_t pid) {
  if (!recorded_already(pid)) proc_of(pid);
}

bool TreeSampler::recorded_already(pid_t pid) {
  auto it = recorded_.find(pid);
  if (it == recorded_.end()) return false;
  CpuAndExit now;
  if (!proc_tree_.stat(pid, &now)) return true;  // gone: nothing to meet
  if (now.start_ticks == it->second) return true;
  recorded_.erase(it);  // the pid was handed out again
  return false;
}

void TreeSampler::image_replaced(pid_t pid) {
  auto it = procs_.find(pid);
  if (it == procs_.end() || !observer_) return;
  Proc* p = it->second.get();
  if (!p->found || p->ended || !p->images.empty()) return;
  // CPU goes on across exec; the kernel's peaks are the new image's already,
  // so the old image keeps its last status reading.
  CpuAndExit cpu;
  if (reader_.stat(&p->watch.handle, &cpu) && cpu.state != 'Z') p->watch.cpu = cpu;
  Ending ending;
  ending.kind = EndKind::kExec;
  ending.writer = Writer::kWatch;
  observer_->image_ended(pid, p->watch, p->own, ending);
  p->own = SampledPeaks{};
  p->watch.kernel = MemoryPeaks{};
  p->watch.ticks = 0;  // the next tick reads stat and status
  observer_->image_found(pid, p->watch);
}

void TreeSampler::exiting(pid_t pid) {
  auto it = procs_.find(pid);
  if (it == procs_.end() || !it->second->found) return;
  CpuAndExit cpu;
  if (reader_.stat(&it->second->watch.handle, &cpu)) it->second->watch.cpu = cpu;
}

void TreeSampler::stop_watching() {
  for (auto& [pid, p] : procs_) {
    if (!p->found || p->ended || !p->images.empty()) continue;
    read_final(reader_, &p->watch);
    Ending ending;
    ending.kind = EndKind::kRunning;
    ending.writer = Writer::kWatch;
    observer_->image_ended(pid, p->watch, p->own, ending);
    p->found = false;  // recorded
    p->ended = true;
  }
}

void TreeSampler::report_running() {
  for (auto& [pid, p] : procs_) {
    if (!p->found || p->ended || !p->images.empty()) continue;
    read_final(reader_, &p->watch);
    observer_->image_running(pid, p->watch, p->own);
  }
}

}  // namespace account
