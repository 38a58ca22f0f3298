/// This process's pid and its parent's as /proc shows them.
///
/// A record, an image file's name and a sampler's /proc reads name a process
/// by its pid in the pid namespace of the /proc it sees: the pids account
/// run's tree sampler and every other record of the run use. In a pid
/// namespace of its own whose /proc is still the outer one (Chromium's
/// sandbox, `unshare --pid` without --mount-proc, a child of `nsenter`),
/// getpid() answers the namespace's pid (1, 2, ...), which outside is init, a
/// kernel thread or another user's process.
#pragma once

#include <sys/types.h>

namespace account {

struct ProcPids {
  pid_t own = 0;   // getpid(): for system calls on this process (pidfd_open)
  pid_t pid = 0;   // as /proc shows it
  pid_t ppid = 0;  // as /proc shows it (0: a parent /proc cannot see)
};

/// Asked once per process: getpid, getppid and a readlink of /proc/self; in
/// a nested namespace also /proc/self/stat for the parent. Raw system calls
/// only (it runs in a fork child).
const ProcPids& proc_pids();

/// In a fork child, before anything asks: the parent's answer is not its own.
void forget_proc_pids();

}  // namespace account
