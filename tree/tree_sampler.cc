// TreeSampler's processes: when one is met, insured with a pidfd, sampled,
// found ended, and forgotten. The walk, the image files and the observer are
// its other parts (tree_sampler_parts.h).
#include "tree_sampler.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "clock.h"
#include "tree_sampler_parts.h"

namespace account {

TreeSampler::TreeSampler(pid_t root, std::string image_dir, const ImageInfo* fallback,
                         ProcReader& proc, ProcTree& tree)
    : root_(root),
      image_dir_(std::move(image_dir)),
      reader_(proc),
      proc_tree_(tree),
      deaths_(fallback, proc),
      epoll_fd_(epoll_create1(EPOLL_CLOEXEC)) {}

TreeSampler::~TreeSampler() {
  for (auto& [pid, p] : procs_) {
    reader_.close(&p->watch.handle);
    p->children.close();
    if (p->pidfd >= 0) close(p->pidfd);
  }
  root_children_.close();
  for (auto& [name, image] : images_) unmap_image_file(&image->view);
  if (epoll_fd_ >= 0) close(epoll_fd_);
  if (loadavg_fd_ >= 0) close(loadavg_fd_);
}

TreeSampler::Proc* TreeSampler::proc_of(pid_t pid, bool has_image_file) {
  auto it = procs_.find(pid);
  if (it != procs_.end()) return it->second.get();
  auto p = std::make_unique<Proc>();
  p->watch.handle.pid = pid;
  // Opened now, while the process lives: its stat still answers as a zombie.
  bool opened = reader_.open(&p->watch.handle);
  // A process that made an image file is a program the shim counts, never a
  // sampler of the shim's: no read of its stat for most new processes.
  CpuAndExit first;
  if (!has_image_file && opened && reader_.stat(&p->watch.handle, &first) &&
      is_shim_sampler(first)) {
    p->shim_sampler = true;
    count_.forget(pid);  // not one of the tree's processes (counted at its first sighting)
    reader_.close(&p->watch.handle);
  }
  if (!opened) {
    p->ended = true;
  } else if (!p->shim_sampler && !observer_) {
    // Most processes of a script live less than a tick: what a process needs
    // only if it dies without its record (its pidfd, status, children) waits
    // for its second tick.
    p->watch.first_slow = 1;
  } else if (!p->shim_sampler) {
    if (!insure(pid, p.get())) p->ended = true;
    if (!p->ended && reader_.stat(&p->watch.handle, &p->watch.cpu)) {
      // Reaped between the open and the read, the kernel still answers from
      // the open file, with ppid 0: an image that is gone, not one to record
      // with no parent (the census counts it as unseen). Only the root may
      // have a parent outside the pid namespace.
      if (p->watch.cpu.ppid == 0 && pid != root_) {
        p->ended = true;
      } else {
        p->found = true;
        observer_->image_found(pid, p->watch);
      }
    }
  }
  Proc* raw = p.get();
  procs_.emplace(pid, std::move(p));
  return raw;
}

bool TreeSampler::insure(pid_t pid, Proc* p) {
  p->insured = true;
  p->pidfd = proc_tree_.open_pidfd(pid);
  p->watch.handle.pidfd = p->pidfd;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = uint64_t(pid);
  return p->pidfd >= 0 && epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, p->pidfd, &ev) == 0;
}

bool TreeSampler::sample(pid_t pid, Proc* p, SampledPeaks* peaks, MemoryNow* now) {
  // Its second tick: insured before the statm read, which then tells that the
  // pidfd is this process's (it was alive after the pidfd was opened).
  bool insuring = !p->insured && p->watch.ticks == 1;  // watched from outside: insured at once
  if (insuring && !insure(pid, p)) {
    p->ended = true;  // reaped since the last tick
    return false;
  }
  if (!sample_tick(reader_, &p->watch, peaks, now)) {
    MemoryNow zeros;
    if (insuring && !reader_.statm(&p->watch.handle, &zeros)) {
      // Reaped before the statm read: the pid may have been handed out again.
      // (Zeros: a zombie, or one still exiting, whose pid is still its own.)
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, p->pidfd, nullptr);
      close(p->pidfd);
      p->pidfd = p->watch.handle.pidfd = -1;
      p->insured = false;
    }
    return false;
  }
  p->live_at = ticks_;
  return true;
}

void TreeSampler::end_proc(pid_t pid) {
  auto it = procs_.find(pid);
  if (it == procs_.end()) return;
  Proc* p = it->second.get();
  last_end_ns_ = realtime_ns();
  count_.ended(pid, monotonic_ns());
  if (observer_ && pid == root_) root_ended_ = true;
  if (p->had_children) reread_root_ = true;  // they are account run's now
  if (observer_ && p->found && p->images.empty()) {
    p->found = false;
    recorded_[pid] = p->watch.cpu.start_ticks;
    observer_->image_ended(pid, p->watch, p->own,
                           classify_tree_death(reader_, &p->watch, pid, Writer::kWatch, heard_));
  }
  for (Image* image : p->images)
    if (image->running()) record_death(*image, p);
  for (auto& [name, id] : p->stillborn) {
    // Neither: it became a proper image file, or its marker is gone.
    if (!stillborn_.count(name) && !marked_.count(name)) continue;
    record_stillborn(name, id, p);
    stillborn_.erase(name);
    marked_.erase(name);
  }
  for (Image* image : p->images) forget_image(image);
  reader_.close(&p->watch.handle);
  p->children.close();
  if (p->pidfd >= 0) {
    // Not left to close(): a lingering sampler's fork shares the pidfd with
    // account run until it exits, and a shared one stays in the set, ready.
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, p->pidfd, nullptr);
    close(p->pidfd);
  }
  procs_.erase(it);
}

void TreeSampler::handle_ended() {
  // Between ticks, a process met in passing is asked whether it has ended.
  for (auto& [pid, p] : procs_)
    if (!p->insured && !p->ended && !p->shim_sampler) p->ended = has_ended(p.get());
  end_ended(true);
}

bool TreeSampler::has_ended(Proc* p) {
  MemoryNow now;
  if (!reader_.statm(&p->watch.handle, &now)) return true;  // reaped
  if (now.size_bytes != 0) return false;
  // No memory: a zombie, or a process still exiting (its memory gone, its
  // exit status not yet set), which is asked again later.
  CpuAndExit stat;
  return !reader_.stat(&p->watch.handle, &stat) || stat.state == 'Z';
}

void TreeSampler::end_ended(bool ask_pidfds) {
  constexpr int kEvents = 64;
  epoll_event events[kEvents];
  while (ask_pidfds) {
    int n = epoll_wait(epoll_fd_, events, kEvents, 0);
    for (int i = 0; i < n; ++i) {
      auto it = procs_.find(pid_t(events[i].data.u64));
      if (it != procs_.end()) it->second->ended = true;
    }
    if (n < kEvents) break;  // all that were ready
  }
  std::vector<pid_t> ended;
  for (auto& [pid, p] : procs_)
    if (p->ended) ended.push_back(pid);
  if (!ended.empty()) look_for_images();  // every image it had gets its record
  for (pid_t pid : ended) end_proc(pid);
  forget_recorded_images();
}

size_t TreeSampler::settle() {
  reread_root_ = true;   // every orphan the command left
  meet_at_once_ = true;  // the last look: nothing is left for a second sighting
  tick();                // also finds what started since the last tick
  meet_at_once_ = false;
  return live_processes();
}

size_t TreeSampler::live_processes() const {
  size_t n = sighted_.size();  // not met yet, alive at the last tick's walk
  for (auto& [pid, p] : procs_) n += !p->ended && !p->shim_sampler;
  return n;
}

bool TreeSampler::owns_descriptor(int fd) const {
  if (fd == epoll_fd_ || fd == loadavg_fd_ || root_children_.holds(fd)) return true;
  if (image_dir_.holds(fd)) return true;
  for (auto& [pid, p] : procs_) {
    const ProcHandle& h = p->watch.handle;
    if (fd == p->pidfd || fd == h.statm_fd || fd == h.stat_fd || fd == h.status_fd) return true;
    if (p->children.holds(fd)) return true;
  }
  return false;
}

bool TreeSampler::all_ended(const std::vector<pid_t>& pids) const {
  for (pid_t pid : pids)
    if (procs_.count(pid)) return false;
  return true;
}

bool is_shim_sampler(const CpuAndExit& stat) {
  // The shim's short-lived first clone has no exit signal and is a copy of its
  // parent until it renames itself.
  return std::strcmp(stat.comm, "account-sampler") == 0 || stat.exit_signal == 0;
}

uint64_t TreeSampler::processes_without_shim() const {
  return count_.without_shim();
}

bool TreeSampler::following(pid_t pid) const {
  auto it = procs_.find(pid);
  return it != procs_.end() && !it->second->ended;
}

}  // namespace account
