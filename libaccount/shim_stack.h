/// A stack of the shim's own, for its work that may not fit the stack the
/// program runs it on: a clone() child's (runc's nsexec gives it 4 KiB) or a
/// signal handler's alternate stack (a program that ends with _exit from one).
/// The set-up of a child and the record (the /proc/self/status read alone is
/// 4 KiB) take more than that.
#pragma once

namespace account {

/// Runs step(arg) on the shim's stack and returns. One stack a process: only
/// one thread may be on it at a time (a clone child before the program runs
/// in it; the thread that claimed the image's record).
void on_shim_stack(void (*step)(void*), void* arg);

/// Whether the calling thread runs on its alternate signal stack (one system call).
bool on_alternate_signal_stack();

}  // namespace account
