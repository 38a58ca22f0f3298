#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomics.h"
#include "backtrace_store.h"
#include "counters.h"
#include "image_file.h"
#include "mapping_guard.h"
#include "real_copy.h"
#include "text_buffer.h"
#include "timeline_store.h"

namespace account {

namespace {

// The uid of the user directory `path` is in (DIR/u<uid>/name).
bool in_user_dir(const char* path, uid_t* uid) {
  const char* name = __builtin_strrchr(path, '/');
  if (!name) return false;
  const char* dir = name;
  while (dir > path && dir[-1] != '/') --dir;
  char component[24];
  size_t len = size_t(name - dir);
  if (len >= sizeof component) return false;
  __builtin_memcpy(component, dir, len);
  component[len] = 0;
  return parse_user_dir_name(component, uid);
}

// A file in a user directory is that user's to make: only a regular file of
// that user with one name is opened (image_file.h), never a link to another's.
int open_image(const char* path) {
  int fd = fd_above_stdio(open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY));
  uid_t uid;
  struct stat st;
  if (fd >= 0 && in_user_dir(path, &uid) &&
      (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != uid)) {
    close(fd);
    errno = EACCES;
    return -1;
  }
  return fd;
}

}  // namespace

namespace {

// What PackedInfo carries besides the identity's text, each with its place in
// Identity or Settings: packing and unpacking walk these two lists, so a field
// added to one direction is in the other.
template <typename P, typename I, typename S, typename F>
void each_scalar(P& packed, I& id, S& settings, F copy) {
  copy(packed.pid, id.pid);
  copy(packed.ppid, id.ppid);
  copy(packed.namespace_pid, id.namespace_pid);
  copy(packed.start_realtime_ns, id.start_realtime_ns);
  copy(packed.start_monotonic_ns, id.start_monotonic_ns);
  copy(packed.argc, id.argc);
  copy(packed.argv_truncated, id.argv_truncated);
  copy(packed.has_output, settings.has_output);
  copy(packed.timeline, settings.timeline);
  copy(packed.record_argv, settings.record_argv);
  copy(packed.sample_ms, settings.sample_ms);
  copy(packed.timeline_points, settings.timeline_points);
  copy(packed.backtrace_depth, settings.backtrace_depth);
  copy(packed.backtrace_min, settings.backtrace_min);
}

// The settings' strings, packed in this order after the identity's text.
template <typename P, typename S, typename F>
void each_string(P& packed, S& settings, F copy) {
  copy(packed.test_len, settings.test, sizeof settings.test);
  copy(packed.op_len, settings.op, sizeof settings.op);
  copy(packed.output_len, settings.output, sizeof settings.output);
}

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

void pack_image_info(const Identity& identity, const Settings& settings, PackedInfo* info) {
  each_scalar(*info, identity, settings, [](auto& packed, const auto& field) { packed = field; });
  info->exe_len = identity.exe_len;
  info->argv_len = identity.argv_len;
  copy_string(info->host, sizeof info->host, identity.host);
  char* at = info->text;
  size_t used = identity.text_used();
  bootstrap_move(at, identity.text, used);
  at += used;
  each_string(*info, settings, [&at](uint32_t& len, const char* text, size_t) {
    size_t n = string_length(text);
    bootstrap_move(at, text, n);
    at += n;
    len = uint32_t(n);
  });
}

size_t packed_info_size(const Identity& identity, const Settings& settings) {
  size_t n = offsetof(PackedInfo, text) + identity.text_used();
  struct {
    uint32_t test_len, op_len, output_len;
  } lengths{};  // each_string's field list, without a PackedInfo on the stack
  each_string(lengths, settings,
              [&n](uint32_t, const char* text, size_t) { n += string_length(text); });
  return n;
}

void publish_image_info() {
  Region* r = g_region;
  if (!image_in_file() || !r) return;
  size_t at = packed_info_size(g_identity, g_settings) <= kInlineInfoBytes
                  ? offsetof(Region, inline_info)
                  : kInfoOffset;
  pack_image_info(g_identity, g_settings,
                  reinterpret_cast<PackedInfo*>(reinterpret_cast<char*>(r) + at));
  store_relaxed(&r->info_offset, uint64_t(at));
  __atomic_store_n(&r->info_published, 1u, __ATOMIC_RELEASE);
}

// Both places hold a whole PackedInfo within the head every image file has, so
// lengths a damaged file claims never read past the mapping; the inline one
// stays on the first page.
static_assert(offsetof(Region, inline_info) + kInlineInfoBytes <= kImagePage);
static_assert(offsetof(Region, inline_info) + sizeof(PackedInfo) <= kHeadBytes);
static_assert(kInfoOffset + sizeof(PackedInfo) <= kHeadBytes);

const PackedInfo* published_info(const ImageFileView& view) {
  const Region* r = view.region;
  if (!r || !__atomic_load_n(&r->info_published, __ATOMIC_ACQUIRE)) return nullptr;
  uint64_t at = load_relaxed(&r->info_offset);
  if (at != offsetof(Region, inline_info) && at != kInfoOffset) return nullptr;
  return reinterpret_cast<const PackedInfo*>(reinterpret_cast<const char*>(r) + at);
}

void unpack_image_info(const PackedInfo& p, ImageInfo* out) {
  *out = ImageInfo{};
  Identity& id = out->identity;
  each_scalar(p, id, out->settings, [](const auto& packed, auto& field) { field = packed; });
  copy_string(id.host, sizeof id.host, p.host);
  const char* at = p.text;
  const char* end = p.text + sizeof p.text;
  size_t exe_len = p.exe_len < kPathCapacity ? p.exe_len : kPathCapacity - 1;
  size_t argv_len = p.argv_len <= kArgvCapacity ? p.argv_len : kArgvCapacity;
  id.set_exe(at, exe_len);
  id.set_argv(at + exe_len + 1, argv_len);
  at += exe_len + 1 + argv_len;
  each_string(p, out->settings, [&](uint32_t len, char* text, size_t cap) {
    at = take_string(at, end, len, text, cap);
  });
}

namespace {

bool map_image_fd(int fd, ImageFileView* view) {
  *view = ImageFileView{};
  struct stat st;
  void* p = nullptr;
  if (fstat(fd, &st) == 0 && size_t(st.st_size) >= kHeadBytes)
    p = mmap(nullptr, size_t(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) p = nullptr;
  // The image may truncate its file under the mapping: a fault then reads
  // zeros and marks the view lost (image_file_lost) instead of ending the sampler.
  int guard = p ? guard_mapping(p, size_t(st.st_size)) : -1;
  if (p && guard < 0) {
    munmap(p, size_t(st.st_size));
    p = nullptr;
  }
  if (!p) return false;
  view->guard = guard;
  view->base = p;
  view->mapped = size_t(st.st_size);
  view->region = static_cast<Region*>(p);
  if (view->region->magic != kRegionMagic) {
    unmap_image_file(view);
    return false;
  }
  // Each offset and size read once (the image may rewrite them at any time),
  // checked, and kept in the view. Sizes in 64 bits: no sum wraps.
  uint64_t at = load_relaxed(&view->region->timeline_offset);
  if (at && at < view->mapped && view->mapped - at >= sizeof(SharedTimeline)) {
    auto* t = reinterpret_cast<SharedTimeline*>(static_cast<char*>(p) + at);
    uint32_t capacity = load_relaxed(&t->state.capacity);
    if (capacity >= 1 && timeline_mapping_size(capacity) <= view->mapped - at) {
      view->timeline = t;
      view->timeline_capacity = capacity;
    }
  }
  at = load_relaxed(&view->region->backtrace_offset);
  if (at && at < view->mapped && view->mapped - at >= sizeof(BacktraceStore)) {
    auto* b = reinterpret_cast<const BacktraceStore*>(static_cast<char*>(p) + at);
    uint32_t capacity = load_relaxed(&b->capacity), depth = load_relaxed(&b->depth);
    if (depth >= 1 && depth <= kBacktraceMaxDepth &&
        backtrace_mapping_size(capacity, depth) <= view->mapped - at) {
      view->backtraces = b;
      view->backtrace_capacity = capacity;
      view->backtrace_depth = depth;
    }
  }
  return true;
}

template <typename T>
T head_field(const char* head, size_t offset) {
  T value;
  __builtin_memcpy(&value, head + offset, sizeof value);
  return value;
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
  if (fd < 0) return errno == ENOENT ? ImageFileLook::kMissing : ImageFileLook::kNotYet;
  // The Region's fields before its slots: enough to tell a finished image.
  // Read field by field: the buffer is smaller than a Region.
  char head[offsetof(Region, slots)];
  ImageFileLook look = ImageFileLook::kNotYet;
  ssize_t got = pread(fd, head, sizeof head, 0);
  if (got == ssize_t(sizeof head) &&
      head_field<uint32_t>(head, offsetof(Region, magic)) == kRegionMagic &&
      image_recorded(head_field<uint32_t>(head, offsetof(Region, image_state)))) {
    *write_error = head_field<uint32_t>(head, offsetof(Region, record_write_error));
    look = ImageFileLook::kRecorded;
  } else if (struct stat st; got == 0 && fstat(fd, &st) == 0 && st.st_size == 0 &&
                             (st.st_mode & 07777) == kStandaloneMarkerMode) {
    // Empty: only then can it be a marker (no fstat for the files of images).
    look = ImageFileLook::kStandaloneMarker;
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

bool image_file_lost(const ImageFileView& view) {
  return mapping_lost(view.guard);
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
  if (view->base) {
    unguard_mapping(view->guard);
    munmap(view->base, view->mapped);
  }
  *view = ImageFileView{};
}

}  // namespace account
