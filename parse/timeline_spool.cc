#include "timeline_spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace account {

namespace {

bool write_all(int fd, const void* data, size_t n, uint64_t offset) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, off_t(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= size_t(w), offset += uint64_t(w);
  }
  return true;
}

bool read_all(int fd, void* data, size_t n, uint64_t offset) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    ssize_t r = pread(fd, p, n, off_t(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r, n -= size_t(r), offset += uint64_t(r);
  }
  return true;
}

template <typename T>
bool put_column(int fd, const std::vector<T>& v, uint64_t* end) {
  size_t bytes = v.size() * sizeof(T);
  if (!write_all(fd, v.data(), bytes, *end)) return false;
  *end += bytes;
  return true;
}

template <typename T>
bool get_column(int fd, std::vector<T>* v, size_t n, uint64_t* at) {
  v->resize(n);
  if (!read_all(fd, v->data(), n * sizeof(T), *at)) return false;
  *at += n * sizeof(T);
  return true;
}

}  // namespace

TimelineSpool::TimelineSpool() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/account-timelines.XXXXXX";
  fd_ = mkostemp(path.data(), O_CLOEXEC);
  if (fd_ >= 0) unlink(path.c_str());
}

TimelineSpool::~TimelineSpool() {
  if (fd_ >= 0) close(fd_);
}

void TimelineSpool::put(Timeline& t) {
  if (t.spooled != 0) return;
  Entry e;
  e.offset = end_;
  e.points = uint32_t(t.t_ms.size());
  e.size = !t.size_bytes.empty();
  e.rss = !t.rss_bytes.empty();
  uint64_t end = end_;
  bool stored = fd_ >= 0 && put_column(fd_, t.t_ms, &end) && put_column(fd_, t.size_bytes, &end) &&
                put_column(fd_, t.rss_bytes, &end);
  if (stored) {
    end_ = end;
    entries_.push_back(e);
    t = Timeline{};
  } else {
    // No room on disk: kept in memory, as without the spool.
    in_memory_.push_back(std::move(t));
    t = Timeline{};
    e.points = UINT32_MAX;
    e.offset = in_memory_.size() - 1;
    entries_.push_back(e);
  }
  t.spooled = entries_.size();
}

Timeline TimelineSpool::get(const Timeline& t) const {
  if (t.spooled == 0 || t.spooled > entries_.size()) return t;
  const Entry& e = entries_[t.spooled - 1];
  if (e.points == UINT32_MAX) return in_memory_[e.offset];
  Timeline out;
  uint64_t at = e.offset;
  bool ok = get_column(fd_, &out.t_ms, e.points, &at) &&
            get_column(fd_, &out.size_bytes, e.size ? e.points : 0, &at) &&
            get_column(fd_, &out.rss_bytes, e.rss ? e.points : 0, &at);
  return ok ? out : Timeline{};
}

}  // namespace account
