#include "image_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomics.h"
#include "next_allocator.h"
#include "proc_pids.h"
#include "raw_syscall.h"
#include "text_buffer.h"

namespace account {

namespace {

// The image file's path, for the parts added later (map_image_part). A usual
// one (/dev/shm/account-run-XXXXXX/<pid>-<ppid>-<ns>) fits the short buffer,
// which lies on the page of the shim's small variables; a longer one costs a
// page of its own.
char g_image_path_short[128];
ACCOUNT_LARGE_BSS char g_image_path_long[kPathCapacity];
const char* g_image_path = nullptr;
bool g_in_file = false;
bool g_marked_standalone = false;
bool g_watched_by_run = false;

bool put_text(char*& p, char* end, const char* s) {
  while (*s && p < end) *p++ = *s++;
  return *s == 0;
}

bool put_decimal(char*& p, char* end, uint64_t v) {
  char digits[20];
  int n = 0;
  do digits[n++] = char('0' + v % 10), v /= 10;
  while (v);
  while (n && p < end) *p++ = digits[--n];
  return n == 0;
}

// DIR/<pid>-<ppid>-<monotonic ns>: unique for every image, exec'd ones
// included. The name alone tells a sampler who the image was and when it
// started, also when it is killed before it writes anything into the file.
// The start is the identity's, once marked (not yet: a counted call before
// the constructor).
bool image_path(const char* dir, char* path, size_t cap) {
  char* p = path;
  char* end = path + cap - 1;
  uint64_t start = g_identity.start_monotonic_ns;
  bool ok = put_text(p, end, dir) && put_text(p, end, "/") &&
            put_decimal(p, end, uint64_t(proc_pids().pid)) && put_text(p, end, "-") &&
            put_decimal(p, end, uint64_t(proc_pids().ppid)) && put_text(p, end, "-") &&
            put_decimal(p, end, start ? start : monotonic_ns());
  *p = 0;
  return ok;
}

// DIR/u<uid>: the user directory of `uid` (image_file.h).
bool user_dir_path(const char* dir, uid_t uid, char* path, size_t cap) {
  char* p = path;
  char* end = path + cap - 1;
  bool ok = put_text(p, end, dir) && put_text(p, end, "/u") && put_decimal(p, end, uint64_t(uid));
  *p = 0;
  return ok;
}

bool take_decimal(const char*& p, uint64_t* v) {
  const char* start = p;
  uint64_t n = 0;
  while (*p >= '0' && *p <= '9' && p - start < 20) n = n * 10 + uint64_t(*p++ - '0');
  *v = n;
  return p != start;
}

// The descriptor, or -errno.
int open_image(const char* path, int flags) {
  int fd;
  do fd = raw_open(path, flags | O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
  while (fd == -EINTR);
  return fd_above_stdio(fd);
}

void* map_file(int fd, size_t size, uint64_t offset) {
  return raw_mmap(size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset));
}

void* map_anonymous_part(size_t size) {
  return raw_mmap(size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
}

// ACCOUNT_SAMPLE_MS=0, read before the settings are (the Region is mapped at
// the first counted call, which may come before the shim's constructor).
bool sampling_off() {
  const char* v = find_env("ACCOUNT_SAMPLE_MS");
  return v && v[0] == '0' && v[1] == 0;
}

// Whether the image sees another file system than the run (a chroot, a
// mount namespace with a tmpfs of its own on /dev/shm), not a run that is
// over and removed its directory: the directory that holds the run's is
// missing, or is not the one the run made it in.
bool run_dir_out_of_view(const char* dir) {
  char parent[kPathCapacity];
  char* p = parent;
  if (!put_text(p, parent + sizeof parent - 1, dir)) return false;
  while (p > parent && *(p - 1) != '/') --p;
  if (p == parent || p - 1 == parent) return false;  // relative, or in "/"
  *(p - 1) = 0;
  struct stat st;
  int err = raw_stat(parent, &st);
  if (err == -ENOENT) return true;
  uint64_t dev, ino;
  const char* run_parent = find_env(kRunDirParentVariable);
  return err == 0 && run_parent && parse_file_id(run_parent, &dev, &ino) &&
         (uint64_t(st.st_dev) != dev || uint64_t(st.st_ino) != ino);
}

Region* map_in_file(ImagePlace* place) {
  if (secure_execution()) return nullptr;
  const char* dir = find_env(kRunDirVariable);
  if (!dir || !*dir) return nullptr;
  if (!image_path(dir, place->path, sizeof place->path)) return nullptr;
  int fd = open_image(place->path, O_CREAT | O_EXCL);
  if (fd == -EACCES) {
    // A process that dropped root: its user directory, if a root image of
    // the run made it.
    uid_t euid = raw_geteuid();
    char user_dir[kPathCapacity];
    if (euid != 0 && user_dir_path(dir, euid, user_dir, sizeof user_dir) &&
        image_path(user_dir, place->path, sizeof place->path))
      fd = open_image(place->path, O_CREAT | O_EXCL);
    if (fd == -ENOENT) fd = -EACCES;  // no user directory: the run lives on
  }
  if (fd < 0) {
    // ENOENT: the run is over (a daemon's late child), standalone, unless the
    // image cannot see where the run's directory is: then, as for any other
    // error, the run lives on and this image cannot use its directory.
    place->run_watches = fd != -ENOENT || run_dir_out_of_view(dir);
    return nullptr;
  }
  // Past `ulimit -f` (ftruncate would send SIGXFSZ) the image runs standalone,
  // and its empty file says so to the run (kStandaloneMarker).
  if (!raw_within_file_size_limit(kHeadBytes)) {
    place->marker = raw_fchmod(fd, kStandaloneMarkerMode) == 0;
    raw_close(fd);
    if (!place->marker) raw_unlink(place->path);
    return nullptr;
  }
  void* p = raw_ftruncate(fd, off_t(kHeadBytes)) == 0 ? map_file(fd, kHeadBytes, 0) : nullptr;
  raw_close(fd);
  if (!p) {
    raw_unlink(place->path);
    place->run_watches = true;
    return nullptr;
  }
  place->in_file = true;
  return static_cast<Region*>(p);
}

// A part is added by opening the image's path again (the image holds no
// descriptor). Once the run removed its directory, another user may have made
// the directory again and put a file of theirs at that path: only a file as
// map_in_file left it is written (a regular file of this image's effective
// user, with one name, at least a head long).
bool made_by_this_image(const struct stat& st) {
  return S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid == getauxval(AT_EUID) &&
         st.st_size >= off_t(kHeadBytes);
}

}  // namespace

bool parse_user_dir_name(const char* name, uid_t* uid) {
  uint64_t v;
  const char* p = name;
  if (*p++ != 'u' || !take_decimal(p, &v) || *p || v > 0xfffffffe) return false;
  *uid = uid_t(v);
  return true;
}

bool parse_image_name(const char* name, ImageName* out) {
  uint64_t pid, ppid, start;
  const char* p = name;
  if (*p == 'u') {  // u<uid>/<pid>-<ppid>-<start>
    uint64_t uid;
    ++p;
    if (!take_decimal(p, &uid) || *p++ != '/') return false;
  }
  if (!take_decimal(p, &pid) || *p++ != '-' || !take_decimal(p, &ppid) || *p++ != '-' ||
      !take_decimal(p, &start) || *p)
    return false;
  if (pid == 0 || pid > 0x7fffffff || ppid > 0x7fffffff) return false;
  out->pid = pid_t(pid);
  out->ppid = pid_t(ppid);
  out->start_monotonic_ns = start;
  return true;
}

void prepare_user_dir(uid_t euid) {
  if (euid == 0 || euid == uid_t(-1) || secure_execution()) return;
  const char* dir = find_env(kRunDirVariable);
  if (!dir || !*dir || raw_geteuid() != 0) return;
  // Only a run's own directory (root's, as account run made it) is changed.
  int run_fd = raw_open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (run_fd < 0) return;
  struct stat st;
  char name[24] = "u";
  char* p = name + 1;
  if (raw_fstat(run_fd, &st) == 0 && st.st_uid == 0 &&
      ((st.st_mode & 07777) == 0700 || (st.st_mode & 07777) == 0711) &&
      put_decimal(p, name + sizeof name - 1, uint64_t(euid)) &&
      raw_syscall(SYS_mkdirat, long(run_fd), long(name), 0700) == 0) {
    int fd = int(raw_syscall(SYS_openat, long(run_fd), long(name),
                             long(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)));
    // 0700 whatever the program's umask, then that user's.
    bool given = fd >= 0 && raw_fchmod(fd, 0700) == 0 && raw_fchown(fd, euid, gid_t(-1)) == 0;
    if (fd >= 0) raw_close(fd);
    if (given)
      // Through the run's directory to the user directory, for every user:
      // only the names they know, of files they cannot open.
      raw_fchmod(run_fd, 0711);
    else
      raw_syscall(SYS_unlinkat, long(run_fd), long(name), long(AT_REMOVEDIR));
  }
  raw_close(run_fd);
}

void init_region(Region* r) {
  r->magic = kRegionMagic;
  r->slots[kSharedSlot].shared = 1;
  r->slots[kSharedSlot].owned = 1;
  r->slots[kSharedSlot].detour = kDetourAll;
  r->slot_limit = 1;
  r->malloc_found = g_malloc_found;
}

Region* map_image_region(ImagePlace* place) {
  int saved_errno = errno;
  place->in_file = false;
  place->marker = false;
  place->run_watches = false;
  Region* r = map_in_file(place);
  if (!r) {
    // Shared only if a sampler process of this image will read it: a private
    // mapping costs the kernel no shared-memory object.
    int sharing = sampling_off() ? MAP_PRIVATE : MAP_SHARED;
    r = static_cast<Region*>(
        raw_mmap(kHeadBytes, PROT_READ | PROT_WRITE, sharing | MAP_ANONYMOUS, -1, 0));
  }
  if (r) init_region(r);
  errno = saved_errno;
  return r;
}

void adopt_image_region(const ImagePlace& place) {
  g_in_file = place.in_file;
  g_marked_standalone = place.marker;
  g_watched_by_run = place.in_file || place.marker || place.run_watches;
  if (g_in_file || g_marked_standalone) {
    bool fits = string_length(place.path) < sizeof g_image_path_short;
    char* path = fits ? g_image_path_short : g_image_path_long;
    char* p = path;
    put_text(p, path + (fits ? sizeof g_image_path_short : kPathCapacity) - 1, place.path);
    *p = 0;
    g_image_path = path;
  }
}

void discard_image_region(Region* r, const ImagePlace& place) {
  if (place.in_file || place.marker) raw_unlink(place.path);
  raw_munmap(r, kHeadBytes);
}

void unmap_image_region(Region* r) {
  raw_munmap(r, kHeadBytes);
}

bool image_in_file() {
  return g_in_file;
}

bool image_marked_standalone() {
  return g_marked_standalone;
}

bool image_watched_by_run() {
  return g_watched_by_run;
}

bool image_counted_without_shim() {
  return g_watched_by_run && !g_in_file && !g_marked_standalone;
}

bool image_says_own_loss() {
  return !g_watched_by_run || g_marked_standalone;
}

void remove_own_image_file() {
  if (!(g_in_file || g_marked_standalone) || !g_image_path) return;
  raw_unlink(g_image_path);
}

void* map_image_part(size_t size, uint64_t* offset) {
  *offset = 0;
  if (!g_in_file) return map_anonymous_part(size);
  int saved_errno = errno;
  int fd = open_image(g_image_path, 0);
  // Gone (the run removed its directory while this process lived on): the
  // part stays in the process, as standalone.
  if (fd < 0) {
    errno = saved_errno;
    return map_anonymous_part(size);
  }
  void* p = nullptr;
  struct stat st;
  if (raw_fstat(fd, &st) == 0) {
    if (!made_by_this_image(st)) {
      raw_close(fd);
      warn("the image file ", g_image_path,
           " was replaced by a file this process did not make (refused); its timeline and "
           "backtraces stay in the process");
      errno = saved_errno;
      return map_anonymous_part(size);
    }
    uint64_t at = image_round_up(size_t(st.st_size));
    if (raw_within_file_size_limit(at + size) && raw_ftruncate(fd, off_t(at + size)) == 0)
      p = map_file(fd, size, at);
    if (p) *offset = at;
  }
  raw_close(fd);
  errno = saved_errno;
  return p;
}

}  // namespace account
