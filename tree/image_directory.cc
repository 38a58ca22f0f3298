#include "image_directory.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cstring>

#include "image_file.h"

namespace account {
namespace {

// A user made these directories: deeper than this, what they left stays.
constexpr int kDeepestRemoved = 8;

bool remove_all_below(int base_fd, const char* name, int depth) {
  int fd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  // Taken from its user first, so that nothing is added to it while it is
  // emptied (in a run of another user's, emptied as it is).
  if (fchown(fd, geteuid(), getegid()) == 0) fchmod(fd, 0700);
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return false;
  }
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    if (unlinkat(dirfd(d), e->d_name, 0) != 0 && errno == EISDIR && depth < kDeepestRemoved)
      remove_all_below(dirfd(d), e->d_name, depth + 1);
  }
  closedir(d);
  return unlinkat(base_fd, name, AT_REMOVEDIR) == 0;
}

}  // namespace

constexpr uint32_t kWatched = IN_CREATE | IN_MOVED_TO | IN_DELETE;

bool ImageDirectory::claim(int dir_fd) {
  return flock(dir_fd, LOCK_EX | LOCK_NB) == 0;
}

bool ImageDirectory::remove_all(int base_fd, const char* name) {
  return remove_all_below(base_fd, name, 0);
}

ImageDirectory::ImageDirectory(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  lock_ = open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (lock_ >= 0 && !claim(lock_)) {
    close(lock_);
    lock_ = -1;
  }
  watch_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watch_ >= 0) run_watch_ = inotify_add_watch(watch_, path_.c_str(), kWatched);
  if (watch_ >= 0 && run_watch_ < 0) {
    close(watch_);
    watch_ = -1;
  }
}

void ImageDirectory::take_user_dir(const std::string& dir, std::vector<std::string>* names) {
  std::string path = path_of(dir);
  bool watched = false;
  for (const auto& [wd, name] : user_watches_) watched = watched || name == dir;
  if (watch_ >= 0 && !watched) {
    int wd = inotify_add_watch(watch_, path.c_str(), kWatched | IN_ONLYDIR | IN_DONT_FOLLOW);
    if (wd >= 0) user_watches_[wd] = dir;
  }
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR* d = fd >= 0 ? fdopendir(fd) : nullptr;
  if (!d) {
    if (fd >= 0) close(fd);
    return;
  }
  while (dirent* e = readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
      names->push_back(dir + "/" + e->d_name);
  closedir(d);
}

ImageDirectory::~ImageDirectory() {
  if (stream_) closedir(stream_);
  if (watch_ >= 0) close(watch_);
  if (lock_ >= 0) close(lock_);
}

bool ImageDirectory::changes(std::vector<std::string>* created, std::set<std::string>* removed) {
  bool first = !listed_once_;
  listed_once_ = true;
  if (watch_ < 0) return false;
  alignas(inotify_event) char events[16384];
  bool overflow = false;
  for (;;) {
    ssize_t n = read(watch_, events, sizeof events);
    if (n <= 0) break;  // EAGAIN: all read
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(events + at);
      at += ssize_t(sizeof(inotify_event) + e->len);
      if (e->mask & IN_Q_OVERFLOW) overflow = true;
      if (!e->len) continue;
      uid_t uid;
      if (e->wd == run_watch_ && (e->mask & IN_ISDIR)) {
        if ((e->mask & IN_CREATE) && parse_user_dir_name(e->name, &uid))
          take_user_dir(e->name, created);
        continue;
      }
      auto dir = user_watches_.find(e->wd);
      std::string name = dir == user_watches_.end() ? e->name : dir->second + "/" + e->name;
      if (e->mask & IN_DELETE)
        removed->insert(name);
      else
        created->push_back(name);
    }
    // Room for another event was left: the queue was empty (what comes in
    // now is read at the next look).
    if (size_t(n) + sizeof(inotify_event) + NAME_MAX + 1 <= sizeof events) break;
  }
  if (overflow) {
    created->clear();
    removed->clear();
  }
  return !overflow && !first;
}

bool ImageDirectory::list(std::vector<std::string>* names) {
  if (path_.empty()) return false;
  if (!stream_)
    stream_ = opendir(path_.c_str());
  else
    rewinddir(stream_);
  if (!stream_) return false;
  std::vector<std::string> user_dirs;
  while (dirent* e = readdir(stream_)) {
    uid_t uid;
    if (parse_user_dir_name(e->d_name, &uid))
      user_dirs.emplace_back(e->d_name);
    else
      names->emplace_back(e->d_name);
  }
  for (const std::string& dir : user_dirs) take_user_dir(dir, names);
  return true;
}

bool ImageDirectory::holds(int fd) const {
  return fd >= 0 && ((stream_ && fd == dirfd(stream_)) || fd == watch_ || fd == lock_);
}

void ImageDirectory::remove() {
  if (stream_) closedir(stream_);
  stream_ = nullptr;
  if (watch_ >= 0) close(watch_);
  watch_ = -1;
  if (lock_ >= 0) {
    std::vector<std::string> user_dirs;
    int fd = dup(lock_);
    DIR* d = fd >= 0 ? fdopendir(fd) : nullptr;
    uid_t uid;
    while (dirent* e = d ? readdir(d) : nullptr)
      if (parse_user_dir_name(e->d_name, &uid)) user_dirs.emplace_back(e->d_name);
    if (d)
      closedir(d);
    else if (fd >= 0)
      close(fd);
    for (const std::string& dir : user_dirs) remove_all(lock_, dir.c_str());
  }
  if (!path_.empty()) rmdir(path_.c_str());
  if (lock_ >= 0) close(lock_);
  lock_ = -1;
}

}  // namespace account
