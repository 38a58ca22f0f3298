#include "proc_reader.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "raw_syscall.h"

namespace account {

namespace {
class SystemProc final : public ProcReader {};
// Constant-initialized (a vtable pointer only): no dynamic initializer in the shim.
constinit SystemProc g_system_proc;
}  // namespace

bool ProcReader::open(ProcHandle* h) {
  h->statm_fd = open_proc_file(h->pid, "statm");
  if (h->statm_fd < 0) return false;
  h->stat_fd = open_proc_file(h->pid, "stat");
  return true;
}

void ProcReader::close(ProcHandle* h) {
  if (h->statm_fd >= 0) ::close(h->statm_fd);
  if (h->stat_fd >= 0) ::close(h->stat_fd);
  if (h->status_fd >= 0) ::close(h->status_fd);
  h->statm_fd = h->stat_fd = h->status_fd = -1;
}

bool ProcReader::statm(ProcHandle* h, MemoryNow* out) {
  return read_statm(h->statm_fd, out);
}

bool ProcReader::stat(ProcHandle* h, CpuAndExit* out) {
  return read_stat(h->stat_fd, out);
}

bool ProcReader::status(ProcHandle* h, MemoryPeaks* out) {
  if (h->status_fd < 0 && h->statm_fd >= 0) h->status_fd = open_proc_file(h->pid, "status");
  return read_status_peaks(h->status_fd, out);
}

namespace {
// <linux/pidfd.h> of Linux 6.15; Debian 12's headers predate it.
struct PidfdInfo {
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
  int32_t exit_code;
};
static_assert(sizeof(PidfdInfo) == 64, "PIDFD_INFO_SIZE_VER0");
constexpr unsigned long kPidfdGetInfo = _IOWR(0xFF, 11, PidfdInfo);
constexpr uint64_t kPidfdInfoExit = 1ull << 3;
}  // namespace

bool ProcReader::exit_status(ProcHandle* h, int* status) {
  if (h->pidfd < 0) return false;
  PidfdInfo info{};
  info.mask = kPidfdInfoExit;
  if (ioctl(h->pidfd, kPidfdGetInfo, &info) != 0 || !(info.mask & kPidfdInfoExit)) return false;
  *status = info.exit_code;
  return true;
}

bool ProcReader::last_pid(int* loadavg_fd, uint64_t* out) {
  if (*loadavg_fd < 0) *loadavg_fd = raw_open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  return *loadavg_fd >= 0 && read_loadavg_last_pid(*loadavg_fd, out);
}

ProcReader& system_proc() {
  return g_system_proc;
}

}  // namespace account
