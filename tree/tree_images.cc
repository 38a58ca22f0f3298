// TreeSampler's part that follows the run directory's image files: finds them,
// adds their timeline points, writes the record of an image that died without
// its own, and removes each file once done with it.
#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "atomics.h"
#include "timeline_store.h"
#include "tree_sampler_parts.h"

namespace account {

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

namespace {
// A file named by a pid namespace's init (ppid 0: in the run's namespace every
// process has a parent): its pids are another namespace's, never the tree's.
bool names_a_namespace_init(const ImageName& id) {
  return id.ppid == 0;
}

// The run's pids of an image placed from a namespace below the run's: its
// own record names it by them (record_writer.cc).
void place_in_run(Region* r, const ImageName& id) {
  __atomic_store_n(&r->run_ppid, int32_t(id.ppid), __ATOMIC_RELAXED);
  __atomic_store_n(&r->run_pid, int32_t(id.pid), __ATOMIC_RELEASE);
}
}  // namespace

void TreeSampler::discover_images() {
  if (image_dir_.none()) return;
  std::vector<std::string> names;
  std::set<std::string> removed;
  if (image_dir_.changes(&names, &removed)) {
    // Only the names created since the last tick, and the files that were
    // not set up yet when last looked at.
    names.insert(names.end(), stillborn_.begin(), stillborn_.end());
    names.insert(names.end(), unplaced_.begin(), unplaced_.end());
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
      if (in_tree(&id, false)) {
        count_.seen(id.pid, id.start_monotonic_ns, following(id.pid), quiet_ns_, true);
        count_.shimmed(id.pid);
      } else {
        note_unnamed(id);
      }
      continue;
    }
    look_at_image(name);
  }
  for (const std::string& name : removed) {
    ImageName id;
    if (unplaced_.erase(name) && parse_image_name(name.c_str(), &id)) note_unnamed(id);
    marked_.erase(name);     // it recorded itself
    stillborn_.erase(name);  // it set itself up and recorded itself
    if (auto it = images_.find(name); it != images_.end()) it->second->file_removed = true;
  }
}

bool TreeSampler::in_tree(ImageName* id, bool check_parents) {
  // A pid the tree has not met may be a namespace's: below the run's own (the
  // tree's are above it, but after a wrap of the pids), or any once such a
  // namespace is known. One that cannot be placed is the tree's only if its
  // parents say so: counted under a namespace's pid, it would be a process
  // twice.
  bool init = names_a_namespace_init(*id);
  bool unknown = !procs_.count(id->pid) && !sighted_.count(id->pid);
  bool suspect = init || (unknown && (nested_ || id->pid < root_));
  if (!suspect && (!check_parents || of_this_tree(*id))) return true;
  if (place_nested(id)) return nested_ = true;
  // Its parents read once: a name that was no suspect has been checked above.
  if (suspect && !init && of_this_tree(*id)) return true;
  nested_ = true;
  return false;
}

pid_t TreeSampler::nested_pid_of(pid_t pid) {
  auto [it, fresh] = nested_pids_.try_emplace(pid, 0);
  if (fresh) it->second = proc_tree_.nested_pid(pid);
  return it->second;
}

bool TreeSampler::place_nested(ImageName* id) {
  pid_t found = 0;
  for (auto& [pid, p] : procs_)
    if (!found && !p->ended && !p->shim_sampler && nested_pid_of(pid) == id->pid) found = pid;
  for (pid_t pid : sighted_)
    if (!found && nested_pid_of(pid) == id->pid) found = pid;
  // One that has ended since a walk sighted it.
  for (auto it = nested_pids_.begin(); !found && it != nested_pids_.end(); ++it)
    if (it->second == id->pid) found = it->first;
  if (!found) return false;
  CpuAndExit stat;
  id->pid = found;
  id->ppid = proc_tree_.stat(found, &stat) ? pid_t(stat.ppid) : 0;
  return true;
}

void TreeSampler::note_unnamed(const ImageName& id) {
  // A namespace's init names no parent there: its own rule (the report joins
  // it to the exec record before it by namespace_pid).
  if (!names_a_namespace_init(id) && unnamed_.size() < kMaxUnnamed)
    unnamed_.push_back({id.pid, id.ppid, id.start_monotonic_ns});
}

void TreeSampler::pair_unnamed_images() {
  if (unnamed_.empty()) return;
  ProcessCount::Forks forks = count_.forks_by_parent();
  // An image after another of the same process (its exec) finds that one's
  // pairing: in start order.
  std::sort(unnamed_.begin(), unnamed_.end(),
            [](const UnnamedImage& a, const UnnamedImage& b) { return a.start_ns < b.start_ns; });
  std::vector<UnnamedImage> left;
  for (const UnnamedImage& image : unnamed_) {
    pid_t parent = 0;
    int parents = 0;
    for (const auto& [pid, nested] : nested_pids_)
      if (nested == image.ppid) parent = pid, ++parents;
    if (parents != 1) {  // none known, or pids of several namespaces alike
      left.push_back(image);
      continue;
    }
    // Counted already: the parent's child of this pid in the namespace that
    // was running when the image started (a walk placed another image of it,
    // or an image before this one, its exec's, was paired with it).
    bool counted = false;
    if (auto children = forks.find(parent); children != forks.end())
      for (pid_t pid : children->second)
        if (auto n = nested_pids_.find(pid); n != nested_pids_.end() && n->second == image.pid &&
                                             count_.running_at(pid, image.start_ns))
          counted = true;
    if (counted) continue;
    if (pid_t pid = count_.claim_unnamed_image(forks, parent, image.start_ns))
      nested_pids_[pid] = image.pid;
    else
      left.push_back(image);
  }
  unnamed_.swap(left);
}

bool TreeSampler::of_this_tree(const ImageName& id) {
  if (names_a_namespace_init(id)) return false;
  // Up its parents to the run (a subreaper: every orphan of the tree is its
  // child), or to a process already met (procs_, met through the walk or a
  // file this check passed); not count_, which counts any image file's pid.
  pid_t pid = id.pid;
  for (int step = 0; step < 64; ++step) {
    if (pid == root_ || procs_.count(pid)) return true;
    ProcHandle h;
    h.pid = pid;
    CpuAndExit stat;
    bool read = reader_.open(&h) && reader_.stat(&h, &stat);
    reader_.close(&h);
    if (!read) return true;            // gone: its file alone can tell, as before
    if (stat.ppid <= 1) return false;  // not below the run
    pid = stat.ppid;
  }
  return false;
}

void TreeSampler::look_at_image(const std::string& name) {
  ImageName id;
  if (!parse_image_name(name.c_str(), &id) || images_.count(name)) return;
  auto image = std::make_unique<Image>();
  std::string path = image_dir_.path_of(name);
  uint32_t write_error = 0;
  ImageFileLook look = look_at_image_file(path.c_str(), &image->view, &write_error);
  // One to watch must be a process of this tree: an image in a pid namespace
  // below the run's with a /proc of its own names its file with a pid of that
  // namespace, which here may be init or a kernel thread (sampled as the
  // tree's, and waited for forever). Placed under the run's pid once a walk
  // has sighted its process (place_nested); until then looked at again.
  bool to_watch = look == ImageFileLook::kMapped || look == ImageFileLook::kNotYet ||
                  look == ImageFileLook::kStandaloneMarker;
  pid_t named_pid = id.pid;
  if (!in_tree(&id, to_watch)) {
    unmap_image_file(&image->view);
    stillborn_.erase(name);
    if (look != ImageFileLook::kMissing)
      unplaced_.insert(name);  // looked at again until placed, or noted when gone
    else
      note_unnamed(id);  // it came and went before this look
    return;
  }
  unplaced_.erase(name);
  // Its own record names it as the run does (Region::run_pid).
  if (id.pid != named_pid && look == ImageFileLook::kMapped) place_in_run(image->view.region, id);
  // A process of the tree, also when it ended before any tick saw it alive.
  count_.seen(id.pid, id.start_monotonic_ns, following(id.pid), quiet_ns_, true);
  count_.shimmed(id.pid);
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
  if (look == ImageFileLook::kStandaloneMarker) {
    // It counts itself and writes its own record, then removes the marker:
    // one still there when its process ended is an image killed first.
    bool listed = stillborn_.erase(name) > 0 || marked_.count(name) > 0;
    if (!listed) proc_of(id.pid, true)->stillborn.emplace_back(name, id);
    marked_.insert(name);
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

void TreeSampler::record_death(Image& image, Proc* proc) {
  DeathRecords::Outcome outcome =
      deaths_.record_image(image_dir_.path_of(image.name), image.id, &image.view, &proc->watch);
  if (outcome == DeathRecords::kNotClaimed) return;
  image.recorded_by_sampler = true;
  if (outcome == DeathRecords::kFileLost) count_.unshimmed(image.id.pid);
}

TreeSampler::Image* TreeSampler::current_image(Proc* p) {
  Image* image = p->current();
  // One that dropped root, then exec'd, handed its exec record over: written
  // now, before the next program's samples reach its file.
  while (image && handed_over_exec(image->view.region)) {
    record_death(*image, p);
    if (image->running()) break;  // not claimed
    image = p->current();
  }
  return image;
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
  uint32_t write_error = 0;
  switch (look_at_image_file(path.c_str(), &image->view, &write_error)) {
    case ImageFileLook::kMapped:  // it got as far as its Region, and wrote no record
      image->name = name;
      image->id = id;
      record_death(*image, proc);
      unmap_image_file(&image->view);
      break;
    case ImageFileLook::kMissing:
      // Set up, recorded and removed by the image since the last look (or
      // discarded by it for another Region): its record is its own.
      return;
    case ImageFileLook::kNotYet:
      // Killed between creating its file and setting it up: nothing was counted.
      deaths_.record_unset(id, &proc->watch, true);
      break;
    case ImageFileLook::kStandaloneMarker:
      // Killed while standalone: what it counted died with it (unknown).
      deaths_.record_unset(id, &proc->watch, false);
      break;
    case ImageFileLook::kRecorded:  // its record is written
      break;
  }
  unlink(path.c_str());
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

}  // namespace account
