// The per-image sampler: a small process that reads the target's statm every
// ACCOUNT_SAMPLE_MS, keeps the peaks in the shared Region, and writes the
// target's record if the target dies without writing it (SIGKILL, a fatal signal).
//
// It is started with two raw clone() calls: the first child shares the
// target's memory, has no exit signal and runs beside the target (the target
// does not wait for it); it forks the sampler and exits. The target's wait()
// and SIGCHLD never see either; the sampler is orphaned to init (or a
// subreaper). A target that is a child subreaper itself would adopt that
// orphan: there the sampler is made the target's own child, with no exit
// signal (CLONE_PARENT). It closes every inherited descriptor, leaves the
// session and blocks signals. Only async-signal-safe calls: it is forked from
// a process of any kind.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backtrace.h"
#include "counters.h"
#include "lifecycle.h"
#include "proc_pids.h"
#include "raw_syscall.h"
#include "sampling.h"
#include "timeline_store.h"
#include "under_valgrind.h"

// glibc's clone under its other name: the shim's own clone() (interpose_fork.cc)
// is for the program's.
extern "C" int __clone(int (*fn)(void*), void* stack, int flags, void* arg, ...);

namespace account {

namespace {

// Closes every descriptor but `keep`.
void close_inherited_descriptors(int keep) {
  if (syscall(SYS_close_range, 0u, unsigned(keep - 1), 0u) == 0 &&
      syscall(SYS_close_range, unsigned(keep + 1), ~0u, 0u) == 0)
    return;
  for (int fd = 0; fd < 65536; ++fd)
    if (fd != keep) close(fd);
}

void add_timeline_point(Region* r, const MemoryNow& now) {
  __atomic_store_n(&r->timeline_busy, 1u, __ATOMIC_SEQ_CST);
  Totals t = sum_slots(r);
  TimelinePoint point = timeline_point(g_identity.start_monotonic_ns, monotonic_ns(), now,
                                       t.malloc_bytes, t.copied_bytes);
  timeline_add(&g_timeline->state, g_timeline->points, point);
  __atomic_store_n(&r->timeline_busy, 0u, __ATOMIC_RELEASE);
}

// The target is gone and wrote no record: write it from what we saw, or from
// the figures and end it handed over when its output refused it.
void record_death(ProcessWatch& w, Region* r) {
  Ending ending = ending_of_dead_image(r, classify_death(system_proc(), &w, Writer::kSampler));
  bool handed_over = false;
  if (!claim_dead_image_record(r, g_settings, g_identity.pid, g_identity.start_realtime_ns,
                               &handed_over))
    return;
  FinalFigures f;
  if (handed_over) {
    read_handover(r, &f, &ending);
    ending.writer = Writer::kSampler;
  } else {
    f = final_figures_of(w, realtime_ns());
  }
  store_relaxed(&r->sampler_cpu_ns, process_cpu_now_ns());
  RecordSource src = this_image();
  src.region = r;
  emit(src, f, ending);
}

[[noreturn]] void run_sampler(pid_t target, int pidfd, Region* r) {
  close_inherited_descriptors(pidfd);
  setsid();
  if (chdir("/") != 0) {
  }
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, nullptr);
  store_relaxed(&r->sampler_pid, pid_t(syscall(SYS_getpid)));

  // The pidfd was opened by the target before the clone: a target killed at
  // once is still ours to record. Its /proc files are opened when first
  // needed, and the first sample waits one interval: a process shorter than
  // that costs its sampler nothing but this wait (its record still has the
  // kernel's peaks and a last reading at exit).
  ProcessWatch w;
  w.handle.pid = target;
  w.handle.pidfd = pidfd;
  bool opened = false;
  // The first clone forks the sampler one interval after the start: the first
  // tick is due at once.
  Ticker ticker(g_settings.sample_ms, true);
  auto unrecorded = [r] { return !image_recorded(load_relaxed(&r->image_state)); };
  pollfd p{pidfd, POLLIN, 0};
  sampling_loop(ticker, &p, 1, unrecorded, [&](int ready, bool due) {
    if (!unrecorded()) return false;
    if (!opened) opened = system_proc().open(&w.handle);
    if (ready > 0) {
      record_death(w, r);
      return false;
    }
    if (!due) return true;
    MemoryNow now;
    if (sample_tick(system_proc(), &w, &r->sampled, &now) && g_timeline) add_timeline_point(r, now);
    if (w.ticks % kSlowEvery == 1) store_relaxed(&r->sampler_cpu_ns, process_cpu_now_ns());
    return true;
  });
  store_relaxed(&r->sampler_alive, 0u);
  syscall(SYS_exit_group, 0);
  __builtin_unreachable();
}

}  // namespace

namespace {

struct SamplerStart {
  pid_t target;
  int pidfd;
  Region* region;
  // The target's CPUs (sched_getaffinity's answer; bytes 0: not pinned).
  long cpus_bytes;
  cpu_set_t cpus;
};

// The first clone is started on the target's CPU and stays there: a task that
// shares the target's memory from another CPU makes every change to that
// memory's mappings, and its final teardown, reach across CPUs (TLB
// shootdowns; on a paravirtualized VM a hypervisor call each). Measured with
// 1000 /bin/true from sh, standalone: 1.54x bare unpinned, 1.29x pinned
// (sampling off 1.23x). A child inherits the CPUs it is created with, so the
// target narrows its own for the clone and restores them at once. Not for a
// realtime target: a helper of its policy and priority on its CPU would wait
// behind it for as long as it keeps the CPU, and start no sampler meanwhile.
bool pin_to_this_cpu(SamplerStart* start) {
  start->cpus_bytes = 0;
  long policy = raw_syscall(SYS_sched_getscheduler, 0) & ~long(SCHED_RESET_ON_FORK);
  if (policy != SCHED_OTHER && policy != SCHED_BATCH && policy != SCHED_IDLE) return false;
  start->cpus_bytes = raw_syscall(SYS_sched_getaffinity, 0, sizeof start->cpus,
                                  reinterpret_cast<long>(&start->cpus));
  unsigned cpu = 0;
  if (start->cpus_bytes <= 0 || raw_syscall(SYS_getcpu, reinterpret_cast<long>(&cpu), 0, 0) != 0 ||
      cpu >= CPU_SETSIZE) {
    start->cpus_bytes = 0;
    return false;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (raw_syscall(SYS_sched_setaffinity, 0, sizeof one, reinterpret_cast<long>(&one)) == 0)
    return true;
  start->cpus_bytes = 0;
  return false;
}

void restore_cpus(const SamplerStart& start) {
  if (start.cpus_bytes > 0)
    raw_syscall(SYS_sched_setaffinity, 0, start.cpus_bytes, reinterpret_cast<long>(&start.cpus));
}

// The first clone runs beside the target in the target's memory (CLONE_VM)
// until it has forked the sampler: it must write nothing but its own stack
// (g_intermediate_stack) and its own task's attributes. Not even errno: it has
// the target's thread pointer, so a libc wrapper that failed would write the
// target's errno. Hence raw system calls only.
alignas(64) ACCOUNT_LARGE_BSS char g_intermediate_stack[64 * 1024];
SamplerStart g_start;
// The first clone, until reaped (0: none). It has no exit signal, so only a
// __WCLONE wait sees it: the program's wait() never does.
pid_t g_intermediate = 0;

// Whether the target is a child subreaper (PR_SET_CHILD_SUBREAPER, kept
// across exec, not inherited by a fork child). An orphaned sampler would then
// be the target's own child: one that its wait() returns, and that lives as
// long as the target, so a program that waits for all its children (a
// process supervisor) would wait forever. -1: not asked yet.
int g_subreaper = -1;
// The first clone's step, read by a target that becomes a subreaper meanwhile.
constexpr uint32_t kStarterWaiting = 0;
constexpr uint32_t kStarterForking = 1;
uint32_t g_starter_step = kStarterWaiting;
// The sampler while it is the target's child (made for a subreaper), else 0.
pid_t g_sampler_child = 0;

// Until the target has lived one interval, or ended: whether a sampler is
// needed at all. Most process images of a script live shorter than an
// interval and write their own record; for them no sampler is forked.
bool sampler_needed(const SamplerStart& start) {
  pollfd p{start.pidfd, POLLIN, 0};
  int ms = int(g_settings.sample_ms);
  for (;;) {
    long ready = raw_syscall(SYS_poll, reinterpret_cast<long>(&p), 1, ms);
    if (image_recorded(load_relaxed(&start.region->image_state))) return false;
    if (ready != -EINTR) return true;  // ended without a record, or lived an interval
  }
}

int intermediate_main(void* arg) {
  const SamplerStart* start = static_cast<const SamplerStart*>(arg);
  // Named before the second clone, so the sampler is never seen as a copy of the
  // target (account run's tree sampling skips it by this name).
  raw_syscall(SYS_prctl, PR_SET_NAME, reinterpret_cast<long>("account-sampler"), 0);
  // Its own copy of the descriptor table: keep only the pidfd, so that a pipe
  // the target writes to ($(...) around it) closes when the target's end does.
  unsigned fd = unsigned(start->pidfd);
  raw_syscall(SYS_close_range, 0, long(fd) - 1, 0);
  raw_syscall(SYS_close_range, long(fd) + 1, long(~0u), 0);
  if (!sampler_needed(*start)) return 0;
  restore_cpus(*start);  // the sampler runs wherever the scheduler likes
  // Step, then flag; the target writes the flag, then reads the step
  // (program_sets_subreaper): one of the two sees the other's write.
  __atomic_store_n(&g_starter_step, kStarterForking, __ATOMIC_SEQ_CST);
  bool target_adopts = __atomic_load_n(&g_subreaper, __ATOMIC_SEQ_CST) > 0;
  // A fork-like clone: from here the sampler has its own copy of the memory,
  // taken while the target runs on. Orphaned when this clone exits (SIGCHLD),
  // or, for a subreaper target, its child with this clone's exit signal, none.
  long sampler = raw_syscall(SYS_clone, target_adopts ? CLONE_PARENT : SIGCHLD, 0, 0);
  if (sampler == 0) {
    detach_thread_from_region();
    stop_backtraces_in_this_process();
    run_sampler(start->target, start->pidfd, start->region);
  }
  if (sampler > 0) {
    store_relaxed(&start->region->sampler_alive, 1u);  // the shared Region
    if (target_adopts) g_sampler_child = pid_t(sampler);
  }
  return 0;
}

}  // namespace

void start_sampler(bool after_fork) {
  // Valgrind runs no clone that shares memory but is no thread (its warning
  // would be the program's stderr), nor pidfd_open before 3.20: the image's
  // end writes its record, with the peaks of /proc/self/status.
  if (g_settings.sample_ms == 0 || g_region == nullptr || under_valgrind()) return;
  int saved_errno = errno;
  // A fork child's inherited ones are its parent's children, and a fork child
  // is no subreaper.
  g_intermediate = 0;
  g_sampler_child = 0;
  g_starter_step = kStarterWaiting;
  if (after_fork) {
    g_subreaper = 0;
  } else if (g_subreaper < 0) {
    int subreaper = 0;
    g_subreaper =
        raw_syscall(SYS_prctl, PR_GET_CHILD_SUBREAPER, reinterpret_cast<long>(&subreaper)) == 0 &&
        subreaper != 0;
  }
  int pidfd = fd_above_stdio(int(syscall(SYS_pidfd_open, proc_pids().own, 0)));  // close-on-exec
  if (pidfd < 0) {
    errno = saved_errno;
    return;
  }
  g_start.target = g_identity.pid;
  g_start.pidfd = pidfd;
  g_start.region = g_region;
  bool pinned = pin_to_this_cpu(&g_start);
  // The first clone shares the memory (no page tables copied) and has exit
  // signal 0: no SIGCHLD for the target, and only a __WCLONE wait sees it. The
  // target does not wait for it: the pidfd it holds (a copy of the
  // descriptor table) makes a target killed from now on the sampler's to
  // record, whenever the sampler starts. Waiting (CLONE_VFORK) cost a
  // scheduler hand-over on every process start, milliseconds on a busy
  // machine.
  pid_t middle = __clone(intermediate_main, g_intermediate_stack + sizeof g_intermediate_stack,
                         CLONE_VM, &g_start);
  if (pinned) restore_cpus(g_start);
  if (middle > 0) g_intermediate = middle;
  close(pidfd);
  errno = saved_errno;
}

namespace {

// Waits for a child that has no exit signal (so only a __WCLONE wait sees it)
// to end, and reaps it.
void reap_clone_child(pid_t pid) {
  int status;
  while (waitpid(pid, &status, __WCLONE) < 0 && errno == EINTR) {
  }
}

}  // namespace

void program_sets_subreaper(bool on) {
  if (g_settings.sample_ms == 0) return;
  __atomic_store_n(&g_subreaper, on ? 1 : 0, __ATOMIC_SEQ_CST);
  pid_t middle = g_intermediate;
  if (!on || middle <= 0 || __atomic_load_n(&g_starter_step, __ATOMIC_SEQ_CST) != kStarterForking)
    return;
  // The first clone may be forking an orphan as this process becomes a
  // subreaper: once it has ended, that orphan has gone to init.
  int saved_errno = errno;
  g_intermediate = 0;
  reap_clone_child(middle);
  errno = saved_errno;
}

void reap_sampler_starter(bool exec) {
  int saved_errno = errno;
  pid_t middle = g_intermediate;
  if (middle > 0) {
    g_intermediate = 0;
    // It may still be waiting out its first interval: the record is written
    // (or this is a fork child, to which the pid means nothing), so it has
    // nothing left to do. Our unreaped child: the pid cannot have been
    // reused. Waited for, so that the target stays the last user of its
    // memory and tears it down itself, on its own CPU.
    if (waitpid(middle, nullptr, __WCLONE | WNOHANG) == 0) kill(middle, SIGKILL);
    reap_clone_child(middle);
  }
  // After the first clone has ended: it names the sampler it made.
  pid_t child = g_sampler_child;
  if (exec && child > 0) {
    // The sampler of a subreaper is its child: ended and reaped before an
    // exec (the record is written), so the new program has no child it did
    // not make. At exit it goes to init with the rest of the children.
    g_sampler_child = 0;
    kill(child, SIGKILL);
    reap_clone_child(child);
  }
  errno = saved_errno;
}

}  // namespace account
