#include "lifecycle.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backtrace.h"
#include "counters.h"
#include "image_file.h"
#include "libc_copies.h"
#include "proc_pids.h"
#include "raw_syscall.h"
#include "real_copy.h"
#include "shim_stack.h"
#include "timeline_store.h"

// What at_quick_exit and pthread_atfork call: those two are libc_nonshared.a's,
// linked into the shim's own text on a page a start touches for nothing else.
extern "C" {
int __cxa_at_quick_exit(void (*fn)(void*), void* dso);
int __register_atfork(void (*prepare)(), void (*parent)(), void (*child)(), void* dso);
extern void* __dso_handle __attribute__((visibility("hidden")));
}

namespace account {

namespace {

bool g_started = false;
bool g_sandboxed = false;  // entered_sandbox(): no system call of the image's own from then on

uint64_t timeval_ns(const timeval& tv) {
  return uint64_t(tv.tv_sec) * 1000000000ull + uint64_t(tv.tv_usec) * 1000ull;
}

void on_exit_handler(int status, void*) {
  finish_with_exit(status);
}

// quick_exit's status (interpose_process.cc), for the handler that ends its
// at_quick_exit list (registered first, it runs last, as on_exit's does).
int g_quick_exit_status;

void quick_exit_handler() {
  finish_with_exit(g_quick_exit_status);
}

// Signals are held while an image is set up: a process killed then (a pool
// worker terminated right after its fork) would die before its sampler exists
// and leave no record. Held, the signal arrives once the sampler watches.
class SignalsHeld {
 public:
  SignalsHeld() { raw_block_signals(&saved_); }
  ~SignalsHeld() { raw_restore_signals(&saved_); }

 private:
  uint64_t saved_;
};

// Under account run the tree sampler watches every image, in an image file or
// not; standalone, the image starts its own sampler.
void start_watching(bool after_fork) {
  if (g_settings.timeline && g_settings.sample_ms)
    create_timeline(g_settings.timeline_points, g_settings.sample_ms);
  if (image_in_file())
    publish_image_info();
  else if (!image_watched_by_run())
    start_sampler(after_fork);
}

// Set once the fork handlers are registered: the ways of making a child that
// run none (interpose_fork.cc) run them only then.
bool g_fork_handlers;

void after_fork_in_child() {
  // In a sandbox nothing is set up (no system call): the child counts into
  // its parent's Region and leaves no end of its own there.
  if (__atomic_load_n(&g_sandboxed, __ATOMIC_RELAXED)) {
    g_started = false;
    return;
  }
  SignalsHeld held;
  forget_proc_pids();
  restart_identity_after_fork();  // first: the image file's name carries its start
  reset_region_after_fork();
  g_region->libc_copies = libc_copies_state();
  restart_backtraces_after_fork();
  start_watching(true);
}

// glibc calls constructors with (argc, argv, envp).
__attribute__((constructor(101))) void start(int argc, char** argv, char**) {
  mark_image_start();
  SignalsHeld held;
  current_slot();  // maps the region
  resolve_real_copy();
  // Inert: counted calls go to an anonymous Region nobody reads, and with
  // g_started false no record is ever written.
  if (secure_execution()) return;
  capture_identity(argc, argv);
  load_settings();
  // Under account run the run checked its output already, and says itself
  // what it could not record: an image that cannot write it (one that dropped
  // root) prints nothing on the program's stderr.
  if (g_settings.has_output && !image_watched_by_run())
    check_output_writable(g_settings, g_identity.pid);
  on_exit(on_exit_handler, nullptr);
  __cxa_at_quick_exit(reinterpret_cast<void (*)(void*)>(quick_exit_handler), __dso_handle);
  g_fork_handlers = __register_atfork(libc_copies_before_fork, libc_copies_after_fork_in_parent,
                                      after_fork_in_child, __dso_handle) == 0;
  g_started = true;
  start_backtraces();  // before the sampler, which must inherit the shared groups
  start_watching(false);
  // Last: the copies libc makes for the shim's own start are not counted, and
  // the sampler started above runs on an unpatched libc.
  if (g_settings.libc_copies) g_region->libc_copies = patch_libc_copies();
}

}  // namespace

namespace {

// The /proc files read for the record stay open: exit closes them, and exec
// (O_CLOEXEC); two system calls fewer at every end. Only an exec that fails
// closes them (exec_failed), so a program that goes on never sees them.
int g_end_files[2] = {-1, -1};  // status, io

// rchar and wchar: /proc/self/io adds the I/O of every child this process
// reaped to its own, so it is read only where that adds nothing (no child
// reaped: then it is exact, exited threads included); with children reaped
// and one thread left, that thread's own file (thread-self) is exact unless
// an earlier thread did I/O; otherwise they stay unknown (docs/counters.md).
void read_call_bytes(uint64_t threads, KernelCounters* k) {
  rusage children;
  if (raw_getrusage(RUSAGE_CHILDREN, &children) != 0) return;
  bool reaped = children.ru_minflt > 0;  // every child takes a few faults
  if (reaped && threads != 1) return;
  int fd = reaped ? open_thread_self_file("io") : open_proc_file(0, "io");
  KernelCounters io;
  if (read_io(fd, &io)) {
    k->rchar = io.rchar;
    k->wchar = io.wchar;
    k->have_call_bytes = true;
  }
  g_end_files[1] = fd;
}

void collect_final_figures(FinalFigures& f) {
  rusage usage;
  KernelCounters& k = f.counters;
  if (raw_getrusage(RUSAGE_SELF, &usage) == 0) {
    f.cpu_user_ns = timeval_ns(usage.ru_utime);
    f.cpu_sys_ns = timeval_ns(usage.ru_stime);
    k.minor_faults = uint64_t(usage.ru_minflt);
    k.major_faults = uint64_t(usage.ru_majflt);
    k.voluntary_ctxsw = uint64_t(usage.ru_nvcsw);
    k.involuntary_ctxsw = uint64_t(usage.ru_nivcsw);
    // The kernel's storage bytes in 512-byte blocks (task_io_get_inblock):
    // this process's own, where /proc/self/io adds its reaped children's.
    k.read_bytes = uint64_t(usage.ru_inblock) * 512;
    k.write_bytes = uint64_t(usage.ru_oublock) * 512;
    k.have_faults = k.have_ctxsw = k.have_storage = true;
  }
  // The calling thread's view of the process's memory: /proc/self is the
  // leader's, which reads as a zombie's (no Vm lines) once main has called
  // pthread_exit while other threads run on.
  int fd = open_thread_self_file("status");
  if (fd < 0) fd = open_proc_file(0, "status");
  read_status(fd, &f.peaks, &f.last);
  g_end_files[0] = fd;
  read_call_bytes(f.last.threads, &k);
  f.end_realtime_ns = realtime_ns();  // as late as the record allows
}

void close_end_files() {
  for (int& fd : g_end_files) {
    if (fd >= 0) raw_close(fd);
    fd = -1;
  }
}

// The record, once more, when the first try found no descriptor free: a
// program that holds every one its soft limit allows (one that tests its own
// EMFILE handling; git's tests under `ulimit -n 32`) leaves none for the
// three files of its end (status, io, the output). The soft limit goes up
// toward the hard one for this try, with the figures read again (their files
// could not be opened either), and back before the program goes on (an exec).
int emit_with_room_for_descriptors(FinalFigures& f, const Ending& ending) {
  struct rlimit saved;
  if (!raw_raise_descriptor_limit(4, &saved)) return EMFILE;
  close_end_files();
  collect_final_figures(f);
  int err = emit(this_image(), f, ending);
  raw_restore_descriptor_limit(saved);
  return err;
}

}  // namespace

bool fork_handlers_on() {
  return g_fork_handlers;
}

void run_fork_prepare() {
  libc_copies_before_fork();
}

void run_fork_parent() {
  libc_copies_after_fork_in_parent();
}

void run_fork_child() {
  after_fork_in_child();
}

void quick_exit_called(int status) {
  g_quick_exit_status = status;
}

void finish_with_exit(int status) {
  Ending ending;
  ending.kind = EndKind::kExit;
  ending.code = status & 0xff;
  finish(ending);
}

bool called_by_own_image() {
  return g_started && g_region && raw_getpid() == proc_pids().own;
}

namespace {

bool claim(uint32_t from, uint32_t to) {
  return __atomic_compare_exchange_n(&g_region->image_state, &from, to, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

// Not a vfork child (or a _Fork child) borrowing this image's memory, nor an
// image in a sandbox (entered_sandbox).
bool own_image() {
  return !__atomic_load_n(&g_sandboxed, __ATOMIC_RELAXED) && called_by_own_image();
}

}  // namespace

namespace {
// The record, once this thread has claimed it.
void write_claimed_record(const Ending& ending);
}  // namespace

void finish(const Ending& ending) {
  if (g_started && g_region && __atomic_load_n(&g_sandboxed, __ATOMIC_RELAXED)) {
    leave_sandbox_ending(g_region, ending);
    return;
  }
  if (!own_image() || image_counted_without_shim()) return;
  // A signal arriving between claiming the record and writing it would kill the
  // image with its record unwritten: a pool worker exiting as it is terminated.
  // Held until the record is out; an exiting image keeps them held (it is
  // ending, and its status stays the one recorded), an exec'ing one gets its
  // mask back for the new program. SIGKILL cannot be held: while the state
  // says kWriting, a sampler that finds the image dead writes the record
  // unless it is already in the output.
  uint64_t saved;
  raw_block_signals(&saved);
  if (claim(kRunning, kWriting)) {
    // A program that ends from a signal handler on a small alternate stack
    // (6 KiB: SIGSTKSZ is 8) has no room for the record's 7: the shim's stack.
    if (on_alternate_signal_stack())
      on_shim_stack([](void* e) { write_claimed_record(*static_cast<const Ending*>(e)); },
                    const_cast<Ending*>(&ending));
    else
      write_claimed_record(ending);
  }
  reap_sampler_starter(ending.kind == EndKind::kExec);
  if (ending.kind == EndKind::kExec) raw_restore_signals(&saved);
}

namespace {

// Standalone, the image's sampler process (forked once the image has lived
// an interval) writes a record the image could not: it has descriptors of
// its own. It notices the end of the process, not an exec.
bool sampler_takes_over(const Ending& ending) {
  return ending.kind != EndKind::kExec && load_relaxed(&g_region->sampler_alive) != 0;
}

void write_claimed_record(const Ending& ending) {
  FinalFigures f;
  collect_final_figures(f);
  int err = emit(this_image(), f, ending);
  if (err == EMFILE) err = emit_with_room_for_descriptors(f, ending);
  if (err != 0 && err != ESTALE && (image_in_file() || sampler_takes_over(ending))) {
    // The output refused it (a process that dropped root cannot open
    // root's file; one that left itself no descriptor, soft and hard limit
    // alike): the run's tree sampler, which maps this file, writes it from
    // these figures, once the process is gone or, for an exec (a process
    // that dropped root, then exec'd: runuser, su), at its next tick; or,
    // standalone, this image's sampler, once the process is gone. Not a
    // replaced output (ESTALE: the run is over).
    hand_over_record(g_region, f, ending);
  } else {
    // Under account run, the run counts and reports lost records (one line
    // for the whole tree); standalone, the image says so itself.
    store_relaxed(&g_region->record_write_error, uint32_t(err));
    if (err != 0 && image_says_own_loss()) warn_record_lost(g_settings, g_identity.pid, err);
    __atomic_store_n(&g_region->image_state,
                     ending.kind == EndKind::kExec ? kExecPending : kRecorded, __ATOMIC_RELEASE);
    // A marker goes however the write ended: the image said a loss itself.
    if (image_removes_own_file(uint32_t(err)) || image_marked_standalone()) remove_own_image_file();
  }
}

}  // namespace

void entered_sandbox() {
  __atomic_store_n(&g_sandboxed, true, __ATOMIC_RELAXED);
}

int exec_failed(int result) {
  if (!own_image()) return result;
  int saved_errno = errno;
  close_end_files();
  errno = saved_errno;
  return result;
}

bool record_pending() {
  return own_image() && load_relaxed(&g_region->image_state) == kRunning;
}

void before_exec(bool likely_to_succeed) {
  if (!likely_to_succeed) return;
  Ending ending;
  ending.kind = EndKind::kExec;
  finish(ending);
}

}  // namespace account
