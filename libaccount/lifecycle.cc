#include "lifecycle.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backtrace.h"
#include "counters.h"
#include "real_copy.h"

namespace account {

namespace {

bool g_started = false;

uint64_t timeval_ns(const timeval& tv) {
  return uint64_t(tv.tv_sec) * 1000000000ull + uint64_t(tv.tv_usec) * 1000ull;
}

void on_exit_handler(int status, void*) {
  Ending ending;
  ending.kind = EndKind::kExit;
  ending.code = status & 0xff;
  finish(ending);
}

void after_fork_in_child() {
  Region* parent = g_region;
  reset_region_after_fork();
  if (parent) munmap(parent, sizeof(Region));
  restart_identity_after_fork();
  restart_backtraces_after_fork();
  start_sampler();
}

// glibc calls constructors with (argc, argv, envp).
__attribute__((constructor(101))) void start(int argc, char** argv, char**) {
  current_slot();  // maps the region
  resolve_real_copy();
  capture_identity(argc, argv);
  load_settings();
  if (g_settings.has_output) check_output_writable(g_settings, g_identity.pid);
  on_exit(on_exit_handler, nullptr);
  pthread_atfork(nullptr, nullptr, after_fork_in_child);
  g_started = true;
  start_backtraces();  // before the sampler, which must inherit the shared groups
  start_sampler();
}

}  // namespace

namespace {

void collect_final_figures(FinalFigures& f) {
  f.end_realtime_ns = realtime_ns();
  rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    f.cpu_user_ns = timeval_ns(usage.ru_utime);
    f.cpu_sys_ns = timeval_ns(usage.ru_stime);
  }
  int fd = open_proc_file(0, "status");
  read_status_peaks(fd, &f.peaks);
  if (fd >= 0) close(fd);
  fd = open_proc_file(0, "statm");
  read_statm(fd, &f.last);
  if (fd >= 0) close(fd);
}

bool claim(uint32_t from, uint32_t to) {
  return __atomic_compare_exchange_n(&g_region->image_state, &from, to, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

// Not a vfork child (or a _Fork child) borrowing this image's memory.
bool own_image() {
  return g_started && g_region && getpid() == g_identity.pid;
}

}  // namespace

void finish(const Ending& ending) {
  uint32_t next = ending.kind == EndKind::kExec ? kExecPending : kRecorded;
  if (!own_image() || !claim(kRunning, next)) return;
  FinalFigures f;
  collect_final_figures(f);
  emit(g_identity, g_settings, g_region, f, ending);
}

void before_exec(bool likely_to_succeed) {
  if (!likely_to_succeed) return;
  Ending ending;
  ending.kind = EndKind::kExec;
  finish(ending);
}

}  // namespace account
