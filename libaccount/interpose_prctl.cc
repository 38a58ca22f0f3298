// prctl and syscall: the settings of its own process that a program makes
// and the shim must follow.
//
// A seccomp sandbox: sshd's and vsftpd's privilege-separated children, and
// anything that uses libseccomp (seccomp_load). A sandbox allows the system
// calls its program needs and often kills on any other: the shim's own at the
// image's end (getrusage, /proc/self/status, the output's flock and
// prlimit64) would end a program that exits 0 with SIGSYS. Once a filter is
// in place the image makes none (entered_sandbox); a vfork child's filter,
// which goes with the child at its exec, is not the image's.
//
// A child subreaper (PR_SET_CHILD_SUBREAPER: tini, dumb-init, supervisors)
// adopts its descendants' orphans: the shim is told before the call, so that
// its sampler is not one of them (program_sets_subreaper).
//
// syscall() also makes and replaces process images (process_syscalls.h) and
// ends the process (SYS_exit_group: the record first, as _exit does).
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "find_next.h"
#include "lifecycle.h"
#include "process_syscalls.h"

using namespace account;

namespace {

using PrctlFn = int (*)(int, unsigned long, unsigned long, unsigned long, unsigned long);

PrctlFn g_next_prctl;
SyscallFn g_next_syscall;

// Resolved at start-up: a sandbox may refuse what dlsym would need later.
__attribute__((constructor(102))) void resolve_at_start() {
  find_next(&g_next_prctl, "prctl");
  find_next(&g_next_syscall, "syscall");
}

bool enters_sandbox(long option, unsigned long mode) {
  return option == PR_SET_SECCOMP && (mode == SECCOMP_MODE_FILTER || mode == SECCOMP_MODE_STRICT);
}

// Before the call: the kernel never refuses it.
void before_prctl(long option, unsigned long arg) {
  if (option == PR_SET_CHILD_SUBREAPER && called_by_own_image()) program_sets_subreaper(arg != 0);
}

}  // namespace

extern "C" {

// glibc's prctl reads four arguments after the option whatever it is, as this does.
__attribute__((visibility("default"))) int prctl(int option, ...) {
  va_list ap;
  va_start(ap, option);
  unsigned long a[4];
  for (unsigned long& x : a) x = va_arg(ap, unsigned long);
  va_end(ap);
  if (!g_next_prctl) resolve_at_start();
  bool sandbox = enters_sandbox(option, a[0]) && called_by_own_image();
  before_prctl(option, a[0]);
  int result = g_next_prctl(option, a[0], a[1], a[2], a[3]);
  if (result == 0 && sandbox) entered_sandbox();
  return result;
}

// glibc's syscall passes six arguments whatever the call, as this does.
__attribute__((visibility("default"))) long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& x : a) x = va_arg(ap, long);
  va_end(ap);
  if (!g_next_syscall) resolve_at_start();
  if (makes_fork_like_child(number, a))
    return make_fork_like_child_by_syscall(g_next_syscall, number, a);
  if (replaces_image(number)) return exec_by_syscall(g_next_syscall, number, a);
  if (number == SYS_exit_group) finish_with_exit(int(a[0]));
  bool seccomp =
      number == SYS_seccomp && (a[0] == SECCOMP_SET_MODE_FILTER || a[0] == SECCOMP_SET_MODE_STRICT);
  bool sandbox =
      (seccomp || (number == SYS_prctl && enters_sandbox(a[0], a[1]))) && called_by_own_image();
  if (number == SYS_prctl) before_prctl(a[0], static_cast<unsigned long>(a[1]));
  long result = g_next_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
  // In: 0, or a listener's descriptor (SECCOMP_FILTER_FLAG_NEW_LISTENER). A
  // TSYNC that failed returns the thread it could not put in: not in.
  bool listener = seccomp && (a[1] & SECCOMP_FILTER_FLAG_NEW_LISTENER);
  if (sandbox && (result == 0 || (listener && result > 0))) entered_sandbox();
  return result;
}

}  // extern "C"
