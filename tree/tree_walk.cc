// TreeSampler's tick: the walk from the root through every process's
// children, each live process's statm, the tree's summed peaks, and when a
// children file needs reading again.
#include <set>

#include "tree_sampler_parts.h"

namespace account {

void TreeSampler::tick() {
  ++ticks_;
  uint64_t now = monotonic_ns();
  // Two intervals as they come (a stalled tick makes it longer), at least a second.
  if (tick_ns_) quiet_ns_ = std::max(kQuietMinNs, 2 * (now - tick_ns_));
  tick_ns_ = now;
  images_looked_ = false;
  sense_forks();
  // The run directory's watch is read when the tick needs it: to meet a
  // process (its image file, if it has one), to follow an image that recorded
  // itself (exec) or a file not set up at the last look, before ending a
  // process (its images' death records), at the first ticks and the last, and
  // every kSlowEvery ticks (processes counted, files of images killed unmet).
  // Most ticks of a script of short commands need none of these: reading what
  // those images did (their files made and removed) and looking at the files
  // of images that end before the next tick were most of such a tick's work.
  // With timelines, every tick looks: see follow_images_every_tick().
  if (images_every_tick_ || ticks_ <= 2 || ticks_ % kSlowEvery == 0 || meet_at_once_)
    look_for_images();
  MemoryNow sum;
  live_.clear();
  std::set<pid_t> walked;
  std::set<pid_t> sighted;  // first sightings of this tick
  size_t children_walked = 0;
  auto walk = [&](std::vector<pid_t> pending) {
    while (!pending.empty()) {
      pid_t pid = pending.back();
      pending.pop_back();
      if (walked.count(pid) || (observer_ && recorded_already(pid))) continue;
      if (!observer_ && !meet_at_once_ && !procs_.count(pid) && !sighted_.count(pid)) {
        // Sighted for the first time and without an image file: nearly always
        // a child between its fork and its image file, or one that is
        // ending (its file removed). Met at its second sighting, or as soon as
        // its image file appears, so one that lives less than a tick costs no
        // system call; a program without the shim is sampled from then on.
        walked.insert(pid);
        sighted.insert(pid);
        if (nested_) nested_pids_[pid] = proc_tree_.nested_pid(pid);  // a new process under it
        // Now, not the tick's start: it may have been forked since.
        count_.seen(pid, monotonic_ns(), false, quiet_ns_);
        continue;
      }
      if (!procs_.count(pid)) look_for_images();  // met now: its image file, if any
      Proc* p = proc_of(pid);
      if (p->shim_sampler || p->ended) continue;
      walked.insert(pid);
      Image* image = current_image(p);
      // Its image recorded itself (an exec's next?), or its file was not set
      // up at the last look.
      if (!image && (!p->images.empty() || waits_for_file(*p))) {
        look_for_images();
        image = current_image(p);
      }
      MemoryNow now;
      if (!sample(pid, p, image ? &image->view.region->sampled : &p->own, &now))
        continue;  // gone, or a zombie
      if (image) {
        refresh_image_file(image_dir_.path_of(image->name).c_str(), &image->view);
        add_timeline_point(image->view, now);
      } else if (observer_ && p->found) {
        observer_->image_sampled(pid, now);
      }
      sum.size_bytes += now.size_bytes;
      sum.resident_bytes += now.resident_bytes;
      sum.shared_bytes += now.shared_bytes;
      live_.push_back(pid);
      count_.seen(pid, monotonic_ns(), p->watch.ticks > 1, quiet_ns_);  // met before this tick?
      // Kept open from a process's second tick on: most live for one at most.
      // One met in passing is walked from its second tick: a child it made in
      // its first is found then, or by its image file.
      if (!p->insured) continue;
      ++children_walked;
      const std::vector<pid_t>& kids = known_children(pid, p);
      p->had_children = !kids.empty();
      pending.insert(pending.end(), kids.begin(), kids.end());
    }
  };
  if (!observer_)
    walk(root_children());
  else if (!root_ended_)
    walk({root_});
  if (observer_) {
    // Watched from outside: what left the root's tree (orphans, or all of it
    // once the root ended) is still the tree's, and so are its new children.
    std::vector<pid_t> outside;
    for (auto& [pid, p] : procs_)
      if (!walked.count(pid) && !p->ended && !p->shim_sampler) outside.push_back(pid);
    walk(outside);
  }
  // Images outside the walk (daemons of a run whose account run has left, so
  // the walk from it finds nothing) still count, in the tree and their own.
  for (auto& [pid, p] : procs_) {
    if (walked.count(pid) || p->ended || p->shim_sampler) continue;
    if (Image* image = current_image(p.get())) {
      MemoryNow now;
      if (!sample(pid, p.get(), &image->view.region->sampled, &now)) continue;
      add_timeline_point(image->view, now);
      sum.size_bytes += now.size_bytes;
      sum.resident_bytes += now.resident_bytes;
      sum.shared_bytes += now.shared_bytes;
      live_.push_back(pid);
    }
  }
  raise_peaks(&tree_, sum);
  children_walked_ = children_walked;
  sighted_.swap(sighted);
  // Live as far as is known (signals and kills go to them too).
  live_.insert(live_.end(), sighted_.begin(), sighted_.end());
  // A process met in passing has no pidfd to say it ended: one not sampled
  // alive in this tick (gone, a zombie, or not walked: a parent met in passing
  // lists no children yet) is asked.
  // An insured process is asked through its pidfd only when this tick did
  // not sample it alive (an epoll_wait every tick was a system call spent on
  // the long-lived processes that make most ticks).
  bool unseen_insured = false;
  for (auto& [pid, p] : procs_) {
    if (p->ended || p->shim_sampler || p->live_at == ticks_) continue;
    if (p->insured)
      unseen_insured = true;
    else
      p->ended = has_ended(p.get());
  }
  end_ended(unseen_insured);
}

std::vector<pid_t> TreeSampler::root_children() {
  // account run's own children change when the command starts and when a
  // process's orphans come to it (it is their subreaper): read on the first
  // ticks, after a walked process with children ended, and every kSlowEvery
  // ticks (orphans of a process never walked: those the shim runs in are
  // found by their image files at once). In between, the last list, less
  // what has ended.
  if (reread_root_ || ticks_ <= 2 || ticks_ % kSlowEvery == 0) {
    // On the schedule, every thread's children too (children() does that on
    // its own kSlowEvery-th read).
    if (ticks_ % kSlowEvery == 0) root_children_.reads = 0;
    reread_root_ = false;
    root_kids_ = children(root_, &root_children_);
    return root_kids_;
  }
  std::vector<pid_t> live;
  for (pid_t pid : root_kids_) {
    auto it = procs_.find(pid);
    if ((it != procs_.end() && !it->second->ended) || sighted_.count(pid)) live.push_back(pid);
  }
  root_kids_ = live;
  return live;
}

void TreeSampler::sense_forks() {
  // A tree only gains a process by a fork, and every fork hands out a pid:
  // while no pid has been handed out since a process's children were read,
  // that list is still all of them (less those that ended). One read of
  // /proc/loadavg then spares one read a process a tick, in a tree that
  // starts nothing (a server and its workers, a test waiting on them). Not
  // worth its read for fewer than two processes to walk.
  uint64_t pid = 0;
  if (children_walked_ < 2 || !reader_.last_pid(&loadavg_fd_, &pid) || pid != last_pid_)
    forked_at_ = ticks_;
  last_pid_ = pid;
}

const std::vector<pid_t>& TreeSampler::known_children(pid_t pid, Proc* p) {
  // Every kSlowEvery ticks read again, every thread's: a child forked by
  // another thread is in no main thread's list, and a /proc/loadavg that
  // never moves (a container's fake) costs at most that delay.
  bool all_threads_due = ticks_ - p->threads_at >= kSlowEvery;
  if (p->kids_at && p->kids_at >= forked_at_ && !all_threads_due) return p->kids;
  if (all_threads_due) {
    p->children.reads = 0;  // children() reads every thread's on its first read
    p->threads_at = ticks_;
  }
  p->kids = p->watch.ticks > 1 ? children(pid, &p->children) : proc_tree_.all_children(pid);
  p->kids_at = ticks_;
  ++children_reads_;
  return p->kids;
}

std::vector<pid_t> TreeSampler::children(pid_t pid, ChildrenFile* file) {
  // Kept open for a bounded number of processes (two descriptors each).
  return proc_tree_.children(pid, file, procs_.size() < kChildrenFilesKept);
}

}  // namespace account
