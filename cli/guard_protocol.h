/// What account run and its guard (the account-guard helper, guard_main.cc)
/// say to each other: the descriptors the guard is started with, the bytes on
/// their socket and the list of members shared by memory when the guard has
/// no process events (docs/security.md).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

namespace account {

/// The guard's descriptors: the run's socket (its close without kOnPurpose is
/// the run's death) and a memfd of one GuardList.
constexpr int kGuardSocketFd = 3;
constexpr int kGuardListFd = 4;

constexpr char kGuardReady = 'r';        // the guard follows the tree by process events
constexpr char kGuardReadyByList = 'l';  // ... by the list account run publishes
constexpr char kGuardOnPurpose = 'x';    // the run ends on purpose

/// Members a published list holds at most; a larger tree is published cut
/// (its other processes are still found below those listed).
constexpr size_t kGuardListCapacity = 32768;

/// Two lists, account run writing one while the other is the published one:
/// killed while writing, it leaves the last whole list published.
struct GuardList {
  uint32_t published;  // 0 or 1, atomically
  uint32_t count[2];
  pid_t pids[2][kGuardListCapacity];
};

}  // namespace account
