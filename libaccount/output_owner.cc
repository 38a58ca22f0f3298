#include "output_owner.h"

#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#include "proc_files.h"
#include "raw_syscall.h"

namespace account {
namespace {

// The kernel's default overflowuid (/proc/sys/kernel/overflowuid): what stat
// shows for an owner the caller's user namespace does not map.
constexpr unsigned kOverflowUid = 65534;

}  // namespace

bool uid_mapped(unsigned uid) {
  int fd = raw_open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;
  bool mapped = read_uid_map_maps(fd, uid);
  raw_close(fd);
  return mapped;
}

bool owned_by_another_user(int fd, const struct stat& st) {
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) return false;
  if (st.st_uid == kOverflowUid && !uid_mapped(kOverflowUid)) {
    long flags = raw_syscall(SYS_fcntl, fd, F_GETFL);
    return flags < 0 || !(flags & O_NOATIME);
  }
  // Root's file is no attacker's: only root can have made it writable to this process.
  if (st.st_uid == 0 || st.st_uid == getauxval(AT_EUID)) return false;
  // The user the image became since its exec (the child a root runuser or su
  // forks drops root, then execs): the file it made as that user.
  return st.st_uid != raw_geteuid();
}

}  // namespace account
