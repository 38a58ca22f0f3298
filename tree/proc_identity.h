/// Who a process is, read from outside through /proc: what account watch (one
/// process or a whole tree) puts in the record of a process it did not start.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "proc_files.h"
#include "proc_tree.h"
#include "settings.h"

namespace account {

/// A start time in clock ticks after boot (/proc/PID/stat field 22) on the
/// realtime clock, in ns since the epoch.
uint64_t realtime_of_boot_ticks(uint64_t ticks);

/// pid, ppid and start from `stat` (the process's /proc/PID/stat); exe and
/// argv from /proc/PID/exe and cmdline as they are now (through `proc`).
void read_identity(pid_t pid, const CpuAndExit& stat, Identity* id, ProcTree& proc = system_tree());

}  // namespace account
