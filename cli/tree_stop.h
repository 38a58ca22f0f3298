/// Ending a process tree whose parent is gone: what a guard of account run
/// does without the kernel's process events (docs/security.md).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <vector>

#include "proc_tree.h"

namespace account {

/// Sends SIGSTOP to `members`, then to every process whose parent is one of
/// them, walking /proc until a walk finds no new one and every process it
/// stopped is stopped (or dead); then SIGKILL to them all. A stopped process
/// forks no more, and its children keep it as their parent while it is stopped,
/// so nothing a member started escapes between two walks. The walks end after
/// `within` in any case (a process in uninterruptible sleep never stops).
/// Returns how many processes it sent SIGKILL to.
size_t stop_and_kill(const std::vector<pid_t>& members, std::chrono::milliseconds within,
                     ProcTree& proc = system_tree());

}  // namespace account
