/// The system calls through syscall() that make or replace a process image,
/// which the shim must follow as it follows their libc functions: children
/// with memory of their own (clone without CLONE_VM, clone3 likewise, fork:
/// interpose_fork.cc runs the fork handlers around them) and execs (execve,
/// execveat: interpose_process.cc writes the exec record first).
/// syscall() (interpose_prctl.cc) hands them here.
#pragma once

namespace account {

using SyscallFn = long (*)(long, long, long, long, long, long, long);

/// `args` are syscall()'s six arguments after the number.
bool makes_fork_like_child(long number, const long* args);
/// Makes that child through `next` (the real syscall), with the fork handlers.
long make_fork_like_child_by_syscall(SyscallFn next, long number, const long* args);

/// SYS_execve or SYS_execveat.
bool replaces_image(long number);
/// That exec through `next`, with the image's record first.
long exec_by_syscall(SyscallFn next, long number, const long* args);

}  // namespace account
