/// Start-up, fork, exec and exit: where a process image's record is written.
#pragma once

#include "record_writer.h"

namespace account {

/// Writes this image's record once (later calls do nothing). Does nothing in a
/// process that merely shares this image's memory (a vfork child).
void finish(const Ending& ending);

/// The same for an exit with `status` (exit's, or what a clone child's function returned).
void finish_with_exit(int status);
/// quick_exit(status) was called: the record is written after the program's
/// at_quick_exit handlers, with this status.
void quick_exit_called(int status);

/// The fork handlers registered with pthread_atfork, for the ways of making a
/// child that run none (interpose_fork.cc): prepare before the child is made,
/// then parent or child after. Only while fork_handlers_on() (the shim
/// started, not inert).
bool fork_handlers_on();
void run_fork_prepare();
void run_fork_parent();
void run_fork_child();

/// True if this image has yet to write its record (false in a vfork child,
/// which borrows its parent's memory): the exec interposers skip their checks
/// of the new program when there is nothing to record.
bool record_pending();

/// Before exec: writes the image's record ("end": "exec") if the exec is
/// likely to succeed (see will_exec.h), so failed attempts leave no record.
void before_exec(bool likely_to_succeed);

/// After an exec that returned (it failed): closes what the record left open
/// for exec to close. Returns `result`, errno kept.
int exec_failed(int result);

/// The program put itself in a seccomp sandbox (interpose_prctl.cc): from
/// now on the image makes no system call of its own, as one the sandbox
/// refuses could end it (SIGSYS). Its record is left to the sampler that
/// watches it, as for an image that died without writing one (its counts
/// from the Region, its end from its zombie or, if that was reaped first,
/// the one it left); a fork's child counts into this image's Region and
/// records nothing.
void entered_sandbox();
/// True when the caller is this image's own process, not a vfork child that
/// borrows its memory (one system call): asked before a sandbox goes in, so
/// that a vfork child's sandbox, which ends at its exec, is not taken for the
/// parent's.
bool called_by_own_image();

/// Starts the sampler process of this image (no-op when ACCOUNT_SAMPLE_MS=0)
/// without waiting for it: the clone that forks it runs beside the image.
/// `after_fork`: in a fork's child (never a subreaper).
void start_sampler(bool after_fork);
/// The program is about to make itself a child subreaper (`on`), or stop
/// being one: the sampler it starts from then on is its own child, which its
/// wait() does not see, rather than an orphan it would adopt.
void program_sets_subreaper(bool on);
/// Ends and reaps that clone once the record is written: before exec, so that
/// the new program inherits no child it did not make, and before exit, so that
/// the image's memory is torn down by the image. Until then it is a child with
/// no exit signal, which the program's wait() never sees.
/// `exec`: before an exec, when a subreaper's sampler (its child) is ended too.
void reap_sampler_starter(bool exec);

}  // namespace account
