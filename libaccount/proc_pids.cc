#include "proc_pids.h"

#include "proc_files.h"
#include "raw_syscall.h"

namespace account {
namespace {

ProcPids g_pids;
int g_pids_known;  // 1 once g_pids holds this process's answer

// "/proc/self" links to the pid in the /proc mount's namespace; 0 when /proc
// is not there (a chroot) or says something else.
pid_t pid_of_proc_self() {
  char link[16];
  long n = raw_readlink("/proc/self", link, sizeof link - 1);
  if (n <= 0) return 0;
  link[n] = 0;
  uint64_t pid;
  const char* end = read_uint(link, &pid);
  return end == link + n && pid <= 0x7fffffff ? pid_t(pid) : 0;
}

ProcPids ask() {
  ProcPids p;
  p.own = p.pid = raw_getpid();
  p.ppid = raw_getppid();
  pid_t seen = pid_of_proc_self();
  if (seen == 0 || seen == p.own) return p;
  // A namespace below /proc's: its parent as /proc shows it too.
  p.pid = seen;
  CpuAndExit stat;
  int fd = open_proc_file(0, "stat");
  p.ppid = fd >= 0 && read_stat(fd, &stat) ? pid_t(stat.ppid) : 0;
  if (fd >= 0) raw_close(fd);
  return p;
}

}  // namespace

const ProcPids& proc_pids() {
  if (!__atomic_load_n(&g_pids_known, __ATOMIC_ACQUIRE)) {
    // Two threads before the constructor may both ask: the answers are equal.
    ProcPids p = ask();
    __atomic_store_n(&g_pids.own, p.own, __ATOMIC_RELAXED);
    __atomic_store_n(&g_pids.pid, p.pid, __ATOMIC_RELAXED);
    __atomic_store_n(&g_pids.ppid, p.ppid, __ATOMIC_RELAXED);
    __atomic_store_n(&g_pids_known, 1, __ATOMIC_RELEASE);
  }
  return g_pids;
}

void forget_proc_pids() {
  __atomic_store_n(&g_pids_known, 0, __ATOMIC_RELAXED);
}

}  // namespace account
