#include "output_owner.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#include "raw_syscall.h"

namespace account {
namespace {

// The kernel's default overflowuid (/proc/sys/kernel/overflowuid): what stat
// shows for an owner the caller's user namespace does not map.
constexpr unsigned kOverflowUid = 65534;

bool take_number(const char*& p, const char* end, uint64_t* v) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  if (p == end || *p < '0' || *p > '9') return false;
  *v = 0;
  while (p < end && *p >= '0' && *p <= '9' && *v <= 0xffffffffu)
    *v = *v * 10 + uint64_t(*p++ - '0');
  return true;
}

}  // namespace

bool uid_mapped(unsigned uid) {
  int fd = raw_open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  char map[1024];  // a few lines; one that does not fit counts as unmapped
  long n = raw_pread(fd, map, sizeof map, 0);
  raw_close(fd);
  if (n < 0) return true;  // an empty map (no mapping written yet) maps no uid
  const char* p = map;
  const char* end = map + n;
  while (p < end) {
    uint64_t inside, outside, count;
    if (!take_number(p, end, &inside) || !take_number(p, end, &outside) ||
        !take_number(p, end, &count))
      return false;
    if (uid >= inside && uid - inside < count) return true;
    while (p < end && *p != '\n') ++p;
    if (p < end) ++p;
  }
  return false;
}

bool owned_by_another_user(int fd, const struct stat& st) {
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return false;
  if (st.st_uid == kOverflowUid && !uid_mapped(kOverflowUid)) {
    long flags = raw_syscall(SYS_fcntl, fd, F_GETFL);
    return flags < 0 || !(flags & O_NOATIME);
  }
  // Root's file is no attacker's: only root can have made it writable to this process.
  return st.st_uid != 0 && st.st_uid != getauxval(AT_EUID);
}

}  // namespace account
