#include "image_directory.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <unistd.h>

namespace account {

bool ImageDirectory::claim(int dir_fd) {
  return flock(dir_fd, LOCK_EX | LOCK_NB) == 0;
}

ImageDirectory::ImageDirectory(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  lock_ = open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (lock_ >= 0 && !claim(lock_)) {
    close(lock_);
    lock_ = -1;
  }
  watch_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watch_ >= 0 &&
      inotify_add_watch(watch_, path_.c_str(), IN_CREATE | IN_MOVED_TO | IN_DELETE) < 0) {
    close(watch_);
    watch_ = -1;
  }
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
      if (e->mask & IN_Q_OVERFLOW) overflow = true;
      if (e->len && (e->mask & IN_DELETE))
        removed->insert(e->name);
      else if (e->len)
        created->emplace_back(e->name);
      at += ssize_t(sizeof(inotify_event) + e->len);
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
  while (dirent* e = readdir(stream_)) names->emplace_back(e->d_name);
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
  if (!path_.empty()) rmdir(path_.c_str());
  if (lock_ >= 0) close(lock_);
  lock_ = -1;
}

}  // namespace account
