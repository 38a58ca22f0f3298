/// TreeSampler's own view of the processes and image files it follows, shared
/// by its parts: the walk (tree_walk.cc), the run directory's images
/// (tree_images.cc), the watch observer (tree_observer.cc) and the processes'
/// lifetimes (tree_sampler.cc). Not for use outside those four files.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "image_file.h"
#include "tree_sampler.h"

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

/// Adds a point to an image's timeline, in the image file.
void add_timeline_point(ImageFileView& v, const MemoryNow& now);

}  // namespace account
