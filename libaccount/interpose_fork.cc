// The ways of making a child with memory of its own that run no fork
// handlers: glibc's _Fork and clone (without CLONE_VM), and the clone,
// clone3 and fork system calls through syscall() (interpose_prctl.cc
// hands them here). The shim's pthread_atfork handlers give a fork's child an
// image of its own; without them the child counted into its parent's Region
// and left no record. Each runs them around the real call, as fork() does.
// A child that shares its parent's memory (CLONE_VM: vfork-like, or a thread
// made by hand) is left alone, as a vfork child is.
#include <linux/sched.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "find_next.h"
#include "lifecycle.h"
#include "process_syscalls.h"
#include "shim_stack.h"

using namespace account;

namespace {

using ForkFn = pid_t (*)();
using CloneFn = int (*)(int (*)(void*), void*, int, void*, ...);

ForkFn g_next_fork;
CloneFn g_next_clone;

// Resolved at start-up: a child made in a signal handler must not call dlsym.
__attribute__((constructor(102))) void resolve_at_start() {
  find_next(&g_next_fork, "_Fork");
  find_next(&g_next_clone, "clone");
}

template <typename Make>
long make_child(Make make) {
  if (!fork_handlers_on()) return make();
  run_fork_prepare();
  long child = make();
  if (child == 0)
    run_fork_child();
  else
    run_fork_parent();
  return child;
}

// What a clone child runs: the child's handler, the program's function, then
// the record glibc's clone would not let exit write (it ends the child with
// the exit system call when the function returns).
struct CloneStart {
  int (*fn)(void*);
  void* arg;
};

// The child runs on the stack the program gave clone(), which may be small
// (shim_stack.h): the shim's set-up of the child and its record run on the
// shim's own, in the child's own copy of the memory.
int g_clone_status;

int start_clone_child(void* start) {
  // In the child's own copy of the parent's memory: the parent's frame that
  // holds *start is still there, unchanged.
  CloneStart s = *static_cast<CloneStart*>(start);
  on_shim_stack([](void*) { run_fork_child(); }, nullptr);
  g_clone_status = s.fn(s.arg);
  on_shim_stack([](void*) { finish_with_exit(g_clone_status); }, nullptr);
  return g_clone_status;
}

}  // namespace

namespace account {

bool makes_fork_like_child(long number, const long* args) {
  switch (number) {
    case SYS_fork:
      return true;
    case SYS_clone:
      return !(args[0] & CLONE_VM);
    case SYS_clone3: {
      const auto* clone = reinterpret_cast<const struct clone_args*>(args[0]);
      return clone && size_t(args[1]) >= sizeof(clone->flags) && !(clone->flags & CLONE_VM);
    }
    default:
      return false;
  }
}

long make_fork_like_child_by_syscall(SyscallFn next, long number, const long* a) {
  return make_child([&] { return next(number, a[0], a[1], a[2], a[3], a[4], a[5]); });
}

}  // namespace account

extern "C" {

__attribute__((visibility("default"))) pid_t _Fork() {
  if (!g_next_fork) resolve_at_start();
  return pid_t(make_child([] { return long(g_next_fork()); }));
}

// glibc's clone reads the three pointers after `arg` whatever the flags, as this does.
__attribute__((visibility("default"))) int clone(int (*fn)(void*), void* stack, int flags,
                                                 void* arg, ...) {
  va_list ap;
  va_start(ap, arg);
  void* parent_tid = va_arg(ap, void*);
  void* tls = va_arg(ap, void*);
  void* child_tid = va_arg(ap, void*);
  va_end(ap);
  if (!g_next_clone) resolve_at_start();
  if ((flags & CLONE_VM) || !fork_handlers_on())
    return g_next_clone(fn, stack, flags, arg, parent_tid, tls, child_tid);
  CloneStart start{fn, arg};
  run_fork_prepare();
  int child = g_next_clone(start_clone_child, stack, flags, &start, parent_tid, tls, child_tid);
  run_fork_parent();  // the child never returns here
  return child;
}

}  // extern "C"
