#include "proc_identity.h"

#include <time.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "proc_text.h"

namespace account {

uint64_t realtime_of_boot_ticks(uint64_t ticks) {
  // The boot time on the realtime clock, taken once: two processes started in
  // the same clock tick get the same start, and a child never starts before
  // its parent (reading the two clocks anew each time jitters by microseconds).
  static const int64_t boot_realtime_ns = [] {
    timespec boot, real;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    clock_gettime(CLOCK_REALTIME, &real);
    return (int64_t(real.tv_sec) - int64_t(boot.tv_sec)) * 1000000000 +
           (int64_t(real.tv_nsec) - int64_t(boot.tv_nsec));
  }();
  uint64_t hz = uint64_t(sysconf(_SC_CLK_TCK));
  return uint64_t(boot_realtime_ns +
                  int64_t(ticks / hz * 1000000000 + ticks % hz * 1000000000 / hz));
}

void read_identity(pid_t pid, const CpuAndExit& stat, Identity* id, ProcTree& proc) {
  id->pid = pid;
  id->ppid = stat.ppid;
  read_host_name(id->host, sizeof id->host);
  id->start_realtime_ns = realtime_of_boot_ticks(stat.start_ticks);
  std::string exe = proc.exe(pid);
  id->set_exe(exe.data(), exe.size());      // cut to kPathCapacity there
  std::string cmdline = proc.cmdline(pid);  // NUL-separated, as Identity keeps it
  if (cmdline.size() > kArgvCapacity) {
    cmdline.resize(kArgvCapacity);
    cmdline.back() = 0;
    id->argv_truncated = true;
  }
  id->set_argv(cmdline.data(), cmdline.size());
  id->argc = 0;
  for (char c : cmdline) id->argc += c == 0;
}

}  // namespace account
