#include "proc_identity.h"

#include <time.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "proc_text.h"

namespace account {

uint64_t realtime_of_boot_ticks(uint64_t ticks) {
  timespec boot, real;
  clock_gettime(CLOCK_BOOTTIME, &boot);
  clock_gettime(CLOCK_REALTIME, &real);
  double boot_at =
      double(real.tv_sec) + real.tv_nsec / 1e9 - (double(boot.tv_sec) + boot.tv_nsec / 1e9);
  return uint64_t((boot_at + double(ticks) / double(sysconf(_SC_CLK_TCK))) * 1e9);
}

void read_identity(pid_t pid, const CpuAndExit& stat, Identity* id) {
  id->pid = pid;
  id->ppid = stat.ppid;
  id->start_realtime_ns = realtime_of_boot_ticks(stat.start_ticks);
  std::string proc = "/proc/" + std::to_string(pid);
  ssize_t n = readlink((proc + "/exe").c_str(), id->exe, sizeof id->exe - 1);
  id->exe[n > 0 ? n : 0] = 0;
  std::string cmdline = read_proc_text(proc + "/cmdline");  // NUL-separated, as Identity keeps it
  if (cmdline.size() > sizeof id->argv) {
    cmdline.resize(sizeof id->argv);
    cmdline.back() = 0;
    id->argv_truncated = true;
  }
  std::memcpy(id->argv, cmdline.data(), cmdline.size());
  id->argv_len = cmdline.size();
  id->argc = 0;
  for (char c : cmdline) id->argc += c == 0;
}

}  // namespace account
