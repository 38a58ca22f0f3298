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

void pack_image_info(const Identity& identity, const Settings& settings, PackedInfo* info) {
  info->pid = identity.pid;
  info->ppid = identity.ppid;
  info->start_realtime_ns = identity.start_realtime_ns;
  info->start_monotonic_ns = identity.start_monotonic_ns;
  info->argv_len = identity.argv_len;
  info->argc = identity.argc;
  info->argv_truncated = identity.argv_truncated;
  info->exe_len = identity.exe_len;
  copy_string(info->host, sizeof info->host, identity.host);
  info->has_output = settings.has_output;
  info->timeline = settings.timeline;
  info->record_argv = settings.record_argv;
  info->sample_ms = settings.sample_ms;
  info->timeline_points = settings.timeline_points;
  info->backtrace_depth = settings.backtrace_depth;
  info->backtrace_min = settings.backtrace_min;
  char* at = info->text;
  size_t used = identity.text_used();
  bootstrap_move(at, identity.text, used);
  at += used;
  uint32_t* lengths[3] = {&info->test_len, &info->op_len, &info->output_len};
  const char* strings[3] = {settings.test, settings.op, settings.output};
  for (int i = 0; i < 3; ++i) {
    size_t n = 0;
    while (strings[i][n]) ++n;
    bootstrap_move(at, strings[i], n);
    at += n;
    *lengths[i] = uint32_t(n);
  }
}

void publish_image_info() {
  Region* r = g_region;
  if (!image_in_file() || !r) return;
  pack_image_info(g_identity, g_settings,
                  reinterpret_cast<PackedInfo*>(reinterpret_cast<char*>(r) + kInfoOffset));
  __atomic_store_n(&r->info_published, 1u, __ATOMIC_RELEASE);
}

namespace {

// Copies n bytes of packed text into a fixed array, cut to its capacity.
const char* take_string(const char* from, const char* end, size_t n, char* dst, size_t cap) {
  size_t left = from < end ? size_t(end - from) : 0;
  if (n > left) n = left;
  size_t len = n < cap ? n : cap - 1;
  bootstrap_move(dst, from, len);
  dst[len] = 0;
  return from + n;
}

}  // namespace

void unpack_image_info(const PackedInfo& p, ImageInfo* out) {
  *out = ImageInfo{};
  Identity& id = out->identity;
  id.pid = p.pid;
  id.ppid = p.ppid;
  id.start_realtime_ns = p.start_realtime_ns;
  id.start_monotonic_ns = p.start_monotonic_ns;
  copy_string(id.host, sizeof id.host, p.host);
  const char* at = p.text;
  const char* end = p.text + sizeof p.text;
  size_t exe_len = p.exe_len < kPathCapacity ? p.exe_len : kPathCapacity - 1;
  size_t argv_len = p.argv_len <= kArgvCapacity ? p.argv_len : kArgvCapacity;
  id.set_exe(at, exe_len);
  id.set_argv(at + exe_len + 1, argv_len);
  id.argc = p.argc;
  id.argv_truncated = p.argv_truncated;
  at += exe_len + 1 + argv_len;
  Settings& s = out->settings;
  s.has_output = p.has_output;
  s.timeline = p.timeline;
  s.record_argv = p.record_argv;
  s.sample_ms = p.sample_ms;
  s.timeline_points = p.timeline_points;
  s.backtrace_depth = p.backtrace_depth;
  s.backtrace_min = p.backtrace_min;
  at = take_string(at, end, p.test_len, s.test, sizeof s.test);
  at = take_string(at, end, p.op_len, s.op, sizeof s.op);
  take_string(at, end, p.output_len, s.output, sizeof s.output);
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
  view->info = reinterpret_cast<const PackedInfo*>(static_cast<char*>(p) + kInfoOffset);
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
