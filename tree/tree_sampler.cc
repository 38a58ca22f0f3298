#include "tree_sampler.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "atomics.h"
#include "backtrace_store.h"
#include "image_file.h"
#include "proc_files.h"
#include "proc_text.h"
#include "record_writer.h"
#include "timeline_store.h"

namespace account {

struct TreeSampler::Image {
  std::string name;
  ImageName id;
  ImageFileView view;
  bool file_removed = false;  // the image removed its file (remove_own_image_file)
  bool recorded_by_sampler = false;
  // Its record is not written yet (it runs, or was killed writing it). A file
  // removed while its Region says running was discarded by its process, which
  // lost the race for its first Region and uses another: no record is its.
  bool running() const {
    return !file_removed &&
           !image_recorded(__atomic_load_n(&view.region->image_state, __ATOMIC_ACQUIRE));
  }
};

struct TreeSampler::Proc {
  ProcessWatch watch;
  ChildrenFile children;
  int pidfd = -1;
  // Its pidfd is open and in the epoll set. Under account run a process is met
  // in passing first (statm and stat only) and insured at its second tick.
  bool insured = false;
  bool ended = false;
  uint64_t live_at = 0;  // the last tick that sampled it alive
  bool shim_sampler = false;
  bool found = false;          // the observer was told of it
  bool had_children = false;   // its last walk found children (orphaned to account run if it ends)
  std::vector<pid_t> kids;     // its children at the last read
  uint64_t kids_at = 0;        // the tick of that read (0: never read)
  uint64_t threads_at = 0;     // the tick of the last read of every thread's children
  SampledPeaks own{};          // for a process without an image file
  std::vector<Image*> images;  // its image files, oldest first
  std::vector<std::pair<std::string, ImageName>> stillborn;  // files not set up yet
  Image* current() const {
    for (auto it = images.rbegin(); it != images.rend(); ++it)
      if ((*it)->running()) return *it;
    return nullptr;
  }
};

namespace {

void add_timeline_point(ImageFileView& v, const MemoryNow& now) {
  Region* r = v.region;
  const PackedInfo* info = published_info(v);
  if (!v.timeline || !info) return;
  __atomic_store_n(&r->timeline_busy, 1u, __ATOMIC_SEQ_CST);
  Totals t = sum_slots(r);
  TimelinePoint point = timeline_point(load_relaxed(&info->start_monotonic_ns), monotonic_ns(), now,
                                       t.malloc_bytes, t.copied_bytes);
  // On a copy of the state held to the capacity checked at mapping: the
  // image's own may say anything, and the points array is only that long.
  TimelineState state;
  memcpy(&state, &v.timeline->state, sizeof state);
  pin_timeline_state(&state, v.timeline_capacity);
  timeline_add(&state, v.timeline->points, point);
  memcpy(&v.timeline->state, &state, sizeof state);
  __atomic_store_n(&r->timeline_busy, 0u, __ATOMIC_RELEASE);
}

}  // namespace

TreeSampler::TreeSampler(pid_t root, std::string image_dir, const ImageInfo* fallback,
                         ProcReader& proc)
    : root_(root),
      image_dir_(std::move(image_dir)),
      reader_(proc),
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
    seen_.erase(pid);  // not one of the tree's processes (counted at its first sighting)
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
  p->pidfd = int(syscall(SYS_pidfd_open, pid, 0));
  p->watch.handle.pidfd = p->pidfd;
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = uint64_t(pid);
  return p->pidfd >= 0 && epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, p->pidfd, &ev) == 0;
}

void TreeSampler::watch_from_outside(TreeObserver* observer) {
  observer_ = observer;
}

void TreeSampler::adopt(pid_t pid) {
  recorded_.erase(pid);  // a fork: a new process, whatever had the pid before
  proc_of(pid);
}

bool TreeSampler::recorded_zombie(pid_t pid) {
  if (!recorded_.count(pid)) return false;
  CpuAndExit stat;
  std::string text = read_proc_text("/proc/" + std::to_string(pid) + "/stat");
  if (parse_stat(text.c_str(), &stat) && stat.state != 'Z') {
    recorded_.erase(pid);  // the pid was handed out again
    return false;
  }
  return true;
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

void TreeSampler::discover_images() {
  if (image_dir_.none()) return;
  std::vector<std::string> names;
  std::set<std::string> removed;
  if (image_dir_.changes(&names, &removed)) {
    // Only the names created since the last tick, and the files that were
    // not set up yet when last looked at.
    names.insert(names.end(), stillborn_.begin(), stillborn_.end());
  } else {
    // The first tick, no watch, or the watch overflowed: the whole directory.
    // (What the watch said on the first tick is kept: an image that came and
    // went before it is one of the tree's.)
    if (!image_dir_.list(&names)) return;
  }
  for (const std::string& name : names) {
    // Created and removed since the last tick: an image that wrote its own
    // record and removed its file (most of a script's): one of the tree's,
    // with nothing left to do and no system call spent on it.
    ImageName id;
    if (removed.count(name) && parse_image_name(name.c_str(), &id) && !images_.count(name) &&
        !stillborn_.count(name)) {
      seen_.insert(id.pid);
      shimmed_.insert(id.pid);
      continue;
    }
    look_at_image(name);
  }
  for (const std::string& name : removed) {
    stillborn_.erase(name);  // it set itself up and recorded itself
    if (auto it = images_.find(name); it != images_.end()) it->second->file_removed = true;
  }
}

void TreeSampler::look_at_image(const std::string& name) {
  ImageName id;
  if (!parse_image_name(name.c_str(), &id) || images_.count(name)) return;
  // A process of the tree, also when it ended before any tick saw it alive.
  seen_.insert(id.pid);
  shimmed_.insert(id.pid);
  auto image = std::make_unique<Image>();
  std::string path = image_dir_.path_of(name);
  uint32_t write_error = 0;
  ImageFileLook look = look_at_image_file(path.c_str(), &image->view, &write_error);
  // Removed: by the image once it wrote its own record, or by the sampler
  // once done with it (a watch's event for a file the first listing found
  // too). Nothing to do.
  if (look == ImageFileLook::kMissing) {
    stillborn_.erase(name);
    return;
  }
  if (look == ImageFileLook::kRecorded) {  // it wrote its record before we looked
    stillborn_.erase(name);
    deaths_.count_loss(int(write_error));
    if (!image_removes_own_file(write_error)) unlink(path.c_str());
    return;
  }
  if (look == ImageFileLook::kNotYet) {
    // Still being set up (found on a later look), or its process was killed
    // while setting it up: decided when the process ends.
    if (!stillborn_.count(name)) proc_of(id.pid, true)->stillborn.emplace_back(name, id);
    stillborn_.insert(name);
    return;
  }
  stillborn_.erase(name);
  image->name = name;
  image->id = id;
  Proc* p = proc_of(id.pid, true);
  auto& list = p->images;
  auto at = list.begin();
  while (at != list.end() && (*at)->id.start_monotonic_ns < id.start_monotonic_ns) ++at;
  list.insert(at, image.get());
  images_.emplace(image->name, std::move(image));
}

bool TreeSampler::waits_for_file(const Proc& p) const {
  for (auto& [name, id] : p.stillborn)
    if (stillborn_.count(name)) return true;
  return false;
}

void TreeSampler::look_for_images() {
  if (images_looked_) return;
  images_looked_ = true;
  ++image_looks_;
  discover_images();
}

void TreeSampler::tick() {
  ++ticks_;
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
      if (walked.count(pid) || (observer_ && recorded_zombie(pid))) continue;
      if (!observer_ && !meet_at_once_ && !procs_.count(pid) && !sighted_.count(pid)) {
        // Sighted for the first time and without an image file: nearly always
        // a child between its fork and its image file, or one that is
        // ending (its file removed). Met at its second sighting, or as soon as
        // its image file appears, so one that lives less than a tick costs no
        // system call; a program without the shim is sampled from then on.
        walked.insert(pid);
        sighted.insert(pid);
        seen_.insert(pid);
        continue;
      }
      if (!procs_.count(pid)) look_for_images();  // met now: its image file, if any
      Proc* p = proc_of(pid);
      if (p->shim_sampler || p->ended) continue;
      walked.insert(pid);
      Image* image = p->current();
      // Its image recorded itself (an exec's next?), or its file was not set
      // up at the last look.
      if (!image && (!p->images.empty() || waits_for_file(*p))) {
        look_for_images();
        image = p->current();
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
      seen_.insert(pid);
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
    if (Image* image = p->current()) {
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

void TreeSampler::record_death(Image& image, Proc* proc) {
  DeathRecords::Outcome outcome =
      deaths_.record_image(image_dir_.path_of(image.name), image.id, &image.view, &proc->watch);
  if (outcome == DeathRecords::kNotClaimed) return;
  image.recorded_by_sampler = true;
  if (outcome == DeathRecords::kFileLost) shimmed_.erase(image.id.pid);
}

// An image's file is done with: its record is written (or lost) by now.
void TreeSampler::forget_image(Image* image) {
  int write_error = 0;
  if (!image->running())
    write_error = int(__atomic_load_n(&image->view.region->record_write_error, __ATOMIC_RELAXED));
  deaths_.count_loss(write_error);
  std::string name = image->name;  // the key outlives the Image it names
  bool image_removes_it = !image->running() && !image->recorded_by_sampler &&
                          image_removes_own_file(uint32_t(write_error));
  if (!image->file_removed && !image_removes_it) unlink((image_dir_.path_of(name)).c_str());
  unmap_image_file(&image->view);
  images_.erase(name);
}

void TreeSampler::record_stillborn(const std::string& name, const ImageName& id, Proc* proc) {
  std::string path = image_dir_.path_of(name);
  auto image = std::make_unique<Image>();
  if (map_image_file(path.c_str(), &image->view)) {  // it got as far as its Region
    image->name = name;
    image->id = id;
    if (image->running()) record_death(*image, proc);
    unmap_image_file(&image->view);
  } else if (access(path.c_str(), F_OK) != 0 && errno == ENOENT) {
    // Set up, recorded and removed by the image since the last look (or
    // discarded by it for another Region): its record is its own.
    return;
  } else {
    // Killed between creating its file and setting it up: nothing was counted.
    deaths_.record_unset(id, &proc->watch);
  }
  unlink(path.c_str());
}

void TreeSampler::end_proc(pid_t pid) {
  auto it = procs_.find(pid);
  if (it == procs_.end()) return;
  Proc* p = it->second.get();
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  last_end_ns_ = uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
  if (observer_ && pid == root_) root_ended_ = true;
  if (p->had_children) reread_root_ = true;  // they are account run's now
  if (observer_ && p->found && p->images.empty()) {
    p->found = false;
    recorded_.insert(pid);
    observer_->image_ended(pid, p->watch, p->own,
                           classify_death(reader_, &p->watch, Writer::kWatch));
  }
  for (Image* image : p->images)
    if (image->running()) record_death(*image, p);
  for (auto& [name, id] : p->stillborn) {
    if (!stillborn_.count(name)) continue;  // it became a proper image file
    record_stillborn(name, id, p);
    stillborn_.erase(name);
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

void TreeSampler::forget_recorded_images() {
  for (auto it = images_.begin(); it != images_.end();) {
    Image* image = it->second.get();
    if (image->running()) {
      ++it;
      continue;
    }
    if (auto p = procs_.find(image->id.pid); p != procs_.end()) {
      auto& list = p->second->images;
      list.erase(std::remove(list.begin(), list.end(), image), list.end());
    }
    ++it;  // forget_image erases it
    forget_image(image);
  }
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

size_t TreeSampler::running_images() const {
  size_t n = 0;
  for (auto& [name, image] : images_) n += image->running();
  return n;
}

void TreeSampler::remove_image_dir() {
  empty_image_dir();
  image_dir_.remove();
}

void TreeSampler::empty_image_dir() {
  if (image_dir_.none()) return;
  while (!images_.empty()) forget_image(images_.begin()->second.get());
  for (auto& [pid, p] : procs_) p->images.clear();
  std::vector<std::string> names;
  image_dir_.list(&names);
  for (const std::string& name : names) {
    if (name[0] == '.') continue;
    // A file no tick looked at (an image that came and went between two):
    // its record is written by now, or lost.
    ImageName id;
    ImageFileView view;
    std::string path = image_dir_.path_of(name);
    if (parse_image_name(name.c_str(), &id) && map_image_file(path.c_str(), &view)) {
      if (image_recorded(__atomic_load_n(&view.region->image_state, __ATOMIC_ACQUIRE)))
        deaths_.count_loss(
            int(__atomic_load_n(&view.region->record_write_error, __ATOMIC_RELAXED)));
      unmap_image_file(&view);
    }
    unlink(path.c_str());
  }
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
  p->kids = p->watch.ticks > 1 ? children(pid, &p->children) : children_of(pid);
  p->kids_at = ticks_;
  ++children_reads_;
  return p->kids;
}

std::vector<pid_t> TreeSampler::children(pid_t pid, ChildrenFile* file) {
  // Kept open for a bounded number of processes (two descriptors each).
  return read_children(pid, file, procs_.size() < kChildrenFilesKept);
}

bool is_shim_sampler(const CpuAndExit& stat) {
  // The shim's short-lived first clone has no exit signal and is a copy of its
  // parent until it renames itself.
  return std::strcmp(stat.comm, "account-sampler") == 0 || stat.exit_signal == 0;
}

uint64_t TreeSampler::processes_without_shim() const {
  uint64_t n = 0;
  for (pid_t pid : seen_) n += shimmed_.count(pid) ? 0 : 1;
  return n;
}

}  // namespace account
