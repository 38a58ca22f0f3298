/// Children made through syscall() that have memory of their own (clone
/// without CLONE_VM, clone3 likewise, fork): syscall() (interpose_prctl.cc)
/// hands them to interpose_fork.cc, which runs the fork handlers around them.
#pragma once

namespace account {

using SyscallFn = long (*)(long, long, long, long, long, long, long);

/// `args` are syscall()'s six arguments after the number.
bool makes_fork_like_child(long number, const long* args);
/// Makes that child through `next` (the real syscall), with the fork handlers.
long make_fork_like_child_by_syscall(SyscallFn next, long number, const long* args);

}  // namespace account
