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

namespace {

void replace_fd(int* fd, int with) {
  if (*fd >= 0) raw_close(*fd);
  *fd = with;
}

int open_memory_file(const ProcHandle* h, const char* name) {
  return h->thread ? open_task_file(h->pid, h->thread, name) : open_proc_file(h->pid, name);
}

// Reads memory through a live thread other than the leader, if there is one.
// Its stat, opened with the process, must still read after that thread's
// statm opened: a process reaped meanwhile could have handed its pid to
// another, whose thread this would be.
bool follow_live_thread(ProcHandle* h) {
  pid_t tid = 0;
  int fd = open_live_thread_statm(h->pid, &tid);
  if (fd < 0) return false;
  CpuAndExit still;
  if (!read_stat(h->stat_fd, &still)) {
    raw_close(fd);
    return false;
  }
  replace_fd(&h->statm_fd, fd);
  h->thread = tid;
  if (h->status_fd >= 0) replace_fd(&h->status_fd, open_memory_file(h, "status"));
  return true;
}

// The thread followed has ended: the process's own files again.
void unfollow_thread(ProcHandle* h) {
  h->thread = 0;
  replace_fd(&h->statm_fd, open_proc_file(h->pid, "statm"));
  if (h->status_fd >= 0) replace_fd(&h->status_fd, open_proc_file(h->pid, "status"));
}

}  // namespace

bool ProcReader::open(ProcHandle* h) {
  h->thread = 0;
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
  h->thread = 0;
}

bool ProcReader::statm(ProcHandle* h, MemoryNow* out) {
  bool read = read_statm(h->statm_fd, out);
  if ((read && out->size_bytes != 0) || h->statm_fd < 0) return read;
  // All zeros (a zombie, one still exiting, or a leader that ended while
  // other threads run), or the thread followed has ended.
  if (follow_live_thread(h)) return read_statm(h->statm_fd, out);
  if (h->thread == 0) return read;
  unfollow_thread(h);
  return read_statm(h->statm_fd, out);
}

bool ProcReader::stat(ProcHandle* h, CpuAndExit* out) {
  if (!read_stat(h->stat_fd, out)) return false;
  MemoryNow now;
  if (out->state == 'Z' && statm(h, &now) && now.size_bytes != 0) out->state = 'S';
  return true;
}

bool ProcReader::status(ProcHandle* h, MemoryPeaks* out) {
  if (h->status_fd < 0 && h->statm_fd >= 0) h->status_fd = open_memory_file(h, "status");
  if (read_status_peaks(h->status_fd, out)) return true;
  // No Vm lines: a zombie's, or a leader's that ended while other threads run
  // (then statm follows a live thread, and status with it).
  if (h->thread != 0 || h->statm_fd < 0) return false;
  MemoryNow now;
  return statm(h, &now) && h->thread != 0 && read_status_peaks(h->status_fd, out);
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
