#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomics.h"
#include "backtrace_store.h"
#include "counters.h"
#include "image_file.h"
#include "real_copy.h"
#include "timeline_store.h"

namespace account {

namespace {

int open_image(const char* path) {
  return fd_above_stdio(open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY));
}

}  // namespace

void publish_image_info() {
  Region* r = g_region;
  if (!image_in_file() || !r) return;
  ImageInfo* info = reinterpret_cast<ImageInfo*>(reinterpret_cast<char*>(r) + kInfoOffset);
  // Only the bytes in use: the pages of the unused capacity stay untouched.
  Identity& id = info->identity;
  id.pid = g_identity.pid;
  id.ppid = g_identity.ppid;
  id.start_realtime_ns = g_identity.start_realtime_ns;
  id.start_monotonic_ns = g_identity.start_monotonic_ns;
  copy_string(id.host, sizeof id.host, g_identity.host);
  id.exe_len = g_identity.exe_len;
  bootstrap_move(id.text, g_identity.text, g_identity.text_used());
  id.argv_len = g_identity.argv_len;
  id.argc = g_identity.argc;
  id.argv_truncated = g_identity.argv_truncated;
  Settings& s = info->settings;
  s.has_output = g_settings.has_output;
  copy_string(s.output, sizeof s.output, g_settings.output);
  copy_string(s.test, sizeof s.test, g_settings.test);
  copy_string(s.op, sizeof s.op, g_settings.op);
  s.sample_ms = g_settings.sample_ms;
  s.timeline = g_settings.timeline;
  s.timeline_points = g_settings.timeline_points;
  s.backtrace_min = g_settings.backtrace_min;
  s.backtrace_depth = g_settings.backtrace_depth;
  s.record_argv = g_settings.record_argv;
  __atomic_store_n(&r->info_published, 1u, __ATOMIC_RELEASE);
}

namespace {

bool map_image_fd(int fd, ImageFileView* view) {
  *view = ImageFileView{};
  struct stat st;
  void* p = nullptr;
  if (fstat(fd, &st) == 0 && size_t(st.st_size) >= kHeadBytes)
    p = mmap(nullptr, size_t(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) p = nullptr;
  if (!p) return false;
  view->base = p;
  view->mapped = size_t(st.st_size);
  view->region = static_cast<Region*>(p);
  if (view->region->magic != kRegionMagic) {
    unmap_image_file(view);
    return false;
  }
  view->info = reinterpret_cast<const ImageInfo*>(static_cast<char*>(p) + kInfoOffset);
  uint64_t at = load_relaxed(&view->region->timeline_offset);
  if (at && at + sizeof(SharedTimeline) <= view->mapped) {
    auto* t = reinterpret_cast<SharedTimeline*>(static_cast<char*>(p) + at);
    if (at + timeline_mapping_size(t->state.capacity) <= view->mapped) view->timeline = t;
  }
  at = load_relaxed(&view->region->backtrace_offset);
  if (at && at + sizeof(BacktraceStore) <= view->mapped) {
    auto* b = reinterpret_cast<const BacktraceStore*>(static_cast<char*>(p) + at);
    if (at + backtrace_mapping_size(b->capacity, b->depth) <= view->mapped) view->backtraces = b;
  }
  return true;
}

}  // namespace

bool map_image_file(const char* path, ImageFileView* view) {
  *view = ImageFileView{};
  int fd = open_image(path);
  if (fd < 0) return false;
  bool mapped = map_image_fd(fd, view);
  close(fd);
  return mapped;
}

ImageFileLook look_at_image_file(const char* path, ImageFileView* view, uint32_t* write_error) {
  *view = ImageFileView{};
  int fd = open_image(path);
  if (fd < 0) return ImageFileLook::kNotYet;
  // The Region's fields before its slots: enough to tell a finished image.
  alignas(Region) char head[offsetof(Region, slots)];
  const Region* r = reinterpret_cast<const Region*>(head);
  ImageFileLook look = ImageFileLook::kNotYet;
  if (pread(fd, head, sizeof head, 0) == ssize_t(sizeof head) && r->magic == kRegionMagic &&
      image_recorded(r->image_state)) {
    *write_error = r->record_write_error;
    look = ImageFileLook::kRecorded;
  } else if (map_image_fd(fd, view)) {
    look = ImageFileLook::kMapped;
    // It may have finished between the read and the mapping.
    if (image_recorded(__atomic_load_n(&view->region->image_state, __ATOMIC_ACQUIRE))) {
      *write_error = load_relaxed(&view->region->record_write_error);
      unmap_image_file(view);
      look = ImageFileLook::kRecorded;
    }
  }
  close(fd);
  return look;
}

bool refresh_image_file(const char* path, ImageFileView* view) {
  bool missing = (load_relaxed(&view->region->timeline_offset) && !view->timeline) ||
                 (load_relaxed(&view->region->backtrace_offset) && !view->backtraces);
  if (!missing) return true;
  ImageFileView fresh;
  if (!map_image_file(path, &fresh)) return false;
  unmap_image_file(view);
  *view = fresh;
  return true;
}

void unmap_image_file(ImageFileView* view) {
  if (view->base) munmap(view->base, view->mapped);
  *view = ImageFileView{};
}

}  // namespace account
