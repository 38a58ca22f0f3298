#include "record_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "backtrace_store.h"
#include "counters.h"
#include "libc_copies.h"
#include "next_allocator.h"
#include "output_owner.h"
#include "raw_syscall.h"
#include "real_copy.h"
#include "record_keys.h"
#include "timeline_store.h"
#include "under_valgrind.h"

namespace account {

namespace {

constexpr uint64_t kMiB = 1024 * 1024;

const char* writer_name(Writer w) {
  switch (w) {
    case Writer::kProcess:
      return "process";
    case Writer::kSampler:
      return "sampler";
    case Writer::kWatch:
      return "watch";
  }
  return "process";
}

const char* end_name(EndKind kind) {
  switch (kind) {
    case EndKind::kRunning:
      return "running";
    case EndKind::kExit:
      return "exit";
    case EndKind::kExec:
      return "exec";
    case EndKind::kSignal:
      return "signal";
    case EndKind::kKilled:
      return "killed";
  }
  return "exit";
}

uint64_t max_u64(uint64_t a, uint64_t b) {
  return a > b ? a : b;
}

void expand_output_path(const Settings& settings, int pid, char* path, uint64_t cap) {
  TextBuffer out(path, cap - 1);
  for (const char* p = settings.output; *p; ++p) {
    if (p[0] == '%' && p[1] == 'p') {
      out.put_int(pid), ++p;
    } else if (p[0] == '%' && p[1] == '%') {
      out.put('%'), ++p;
    } else {
      out.put(*p);
    }
  }
  path[out.size()] = 0;
}

// False when expand_output_path would leave the output as it is: it holds no %.
bool has_placeholder(const char* output) {
  for (const char* p = output; *p; ++p)
    if (*p == '%') return true;
  return false;
}

void put_mib(TextBuffer& out, uint64_t bytes) {
  out.put_fixed(bytes * 100 / kMiB, 2);  // hundredths of MiB
  out.put(" MiB");
}

}  // namespace

// Raw system calls: see raw_syscall.h.
// O_NONBLOCK: a FIFO (or one put at the path) never holds the process at its
// exit; a full pipe loses the record (EAGAIN) instead. A pinned output (the
// run's, which made it) is never created: gone, it stays gone. Any other is
// created if missing, and reached through no symbolic link, neither the file
// nor a directory on its way (-ELOOP): a link another user planted in a shared
// directory cannot lead the records, or their creation, into a file of its
// choosing. Without openat2 (before Linux 5.6, refused by a seccomp filter, or
// under valgrind) only the file's own name is checked.
int open_output(const char* path, bool pinned) {
  const int flags =
      O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | (pinned ? 0 : O_CREAT);
  auto open_as = [&](int access) {
    int fd;
    do
      // Valgrind (3.19) has no openat2 and says so on the program's stderr.
      fd = pinned || under_valgrind() ? raw_open(path, access | flags, 0600)
                                      : raw_open_no_symlinks(path, access | flags, 0600);
    while (fd == -EINTR);
    // ENOSYS: before Linux 5.6; EPERM: a seccomp filter that refuses
    // system calls it does not know (a real EPERM comes back from openat too).
    if (fd == -ENOSYS || fd == -EPERM) {
      do fd = raw_open(path, access | flags, 0600);
      while (fd == -EINTR);
    }
    return fd;
  };
  // Read-write so the last byte can be checked; write-only where reading is not allowed.
  // O_NOATIME: every append moves the file's mtime past its atime, so with
  // relatime each check of the last byte would write the inode (a journal
  // transaction on ext4) at every process's end. Only the file's owner (or
  // CAP_FOWNER) may ask for it: anyone else gets EPERM and opens without.
  int fd = open_as(O_RDWR | O_NOATIME);
  if (fd == -EPERM) fd = open_as(O_RDWR);
  if (fd == -EACCES) fd = open_as(O_WRONLY);
  if (fd < 0) return fd;
  fd = fd_above_stdio(fd);
  return fd < 0 ? -EMFILE : fd;
}

RecordSource this_image() {
  RecordSource src;
  src.identity = &g_identity;
  src.settings = &g_settings;
  src.region = g_region;
  src.timeline = g_timeline;
  src.backtraces = g_backtrace_store;
  src.malloc_found = g_malloc_found;
  return src;
}

FinalFigures final_figures_of(const ProcessWatch& w, uint64_t end_realtime_ns) {
  FinalFigures f;
  f.end_realtime_ns = end_realtime_ns;
  f.cpu_user_ns = w.cpu.user_ns;
  f.cpu_sys_ns = w.cpu.sys_ns;
  f.peaks = w.kernel;
  // stat's minflt and majflt and status's switches are the process's own (its
  // I/O is not read: /proc/PID/io adds its reaped children's).
  if (w.cpu.valid) {
    f.counters.minor_faults = w.cpu.minor_faults;
    f.counters.major_faults = w.cpu.major_faults;
    f.counters.have_faults = true;
  }
  if (w.kernel.have_ctxsw) {
    f.counters.voluntary_ctxsw = w.kernel.voluntary_ctxsw;
    f.counters.involuntary_ctxsw = w.kernel.involuntary_ctxsw;
    f.counters.have_ctxsw = true;
  }
  return f;
}

namespace {

struct RecordPids {
  int64_t pid, ppid;
  int64_t namespace_pid;  // the image's own, where pid is the run's (0: the same)
};

// The pids a record names its image by: as the image knows them, or as
// account run's tree sampler does where it placed an image of a pid
// namespace below the run's (Region::run_pid).
RecordPids record_pids(const Identity& id, const Region* region) {
  int32_t run_pid = region ? __atomic_load_n(&region->run_pid, __ATOMIC_ACQUIRE) : 0;
  if (run_pid && run_pid != id.pid)
    return {run_pid, __atomic_load_n(&region->run_ppid, __ATOMIC_RELAXED), id.pid};
  return {id.pid, id.ppid, id.namespace_pid};
}

}  // namespace

void compose_record(TextBuffer& out, const RecordSource& src, const FinalFigures& f,
                    const Ending& ending) {
  using namespace keys;
  const Identity& id = *src.identity;
  const Settings& settings = *src.settings;
  const Region* region = src.region;
  Totals t = sum_slots(region);
  RecordPids pids = record_pids(id, region);
  out.begin_object();
  out.field(kSchema, 1);
  out.field_string(kKind, "process");
  out.field_int(kPid, pids.pid);
  out.field_int(kPpid, pids.ppid);
  if (pids.namespace_pid) out.field_int(kNamespacePid, pids.namespace_pid);
  out.field_string(kExe, id.exe());
  out.key(kArgv);
  out.put('[');
  if (settings.record_argv) {
    size_t pos = 0;
    for (int i = 0; i < id.argc; ++i) {
      size_t n = string_length(id.argv() + pos);
      if (i) out.put(',');
      out.put_json_string(id.argv() + pos, n);
      pos += n + 1;
    }
  }
  out.put(']');
  if (id.argv_truncated) out.key(kArgvTruncated), out.put("true");
  out.field_string(kTest, settings.test);
  out.field_string(kOp, settings.op);
  out.field_string(kHost, id.host);
  out.field(kStartNs, id.start_realtime_ns);
  if (src.watch_start_ns) out.field(kWatchStartNs, src.watch_start_ns);
  out.field(kEndNs, f.end_realtime_ns);
  out.field_fixed(kCpuUser, f.cpu_user_ns / 1000, 6);
  out.field_fixed(kCpuSys, f.cpu_sys_ns / 1000, 6);
  out.field(kMallocBytes, t.malloc_bytes);
  out.field(kMallocCalls, t.malloc_calls);
  out.field(kFreeCalls, t.free_calls);
  out.field(kReallocCopiedBytes, t.realloc_copied_bytes);
  out.field(kCopiedBytes, t.copied_bytes);
  out.field(kCopiedCalls, t.copied_calls);
  if (uint32_t libc = load_relaxed(&region->libc_copies); libc == account::kLibcCopiesCounted) {
    out.field(kLibcCopiedBytes, t.libc_copied_bytes);
    out.field(kLibcCopiedCalls, t.libc_copied_calls);
  } else if (libc == account::kLibcCopiesUnrecognised) {
    out.key(keys::kLibcCopiesCounted), out.put("false");
  }
  out.field(kHeapPeak, uint64_t(t.heap_peak_bytes > 0 ? t.heap_peak_bytes : 0));
  if (src.counted) {
    // exec discards the heap: an image that exec'd has none at its end.
    if (ending.kind != EndKind::kExec) {
      // Other threads' pending changes are read unsynchronised: never below 0.
      out.field(kHeapAtExitBytes, uint64_t(t.heap_live_bytes > 0 ? t.heap_live_bytes : 0));
      out.field(kHeapAtExitBlocks, uint64_t(t.heap_live_blocks > 0 ? t.heap_live_blocks : 0));
    }
    out.field(kTemporaryAllocs, t.temporary_allocs);
    out.field(kTemporaryBytes, t.temporary_bytes);
  }
  if (!malloc_was_the_shims(src.malloc_found, t.malloc_calls))
    out.key(kMallocInterposed), out.put("false");
  if (!src.counted) out.key(kCounted), out.put("false");
  const SampledPeaks& sampled = region->sampled;
  uint64_t sampled_size = max_u64(load_relaxed(&sampled.size_bytes), f.last.size_bytes);
  uint64_t sampled_rss = max_u64(load_relaxed(&sampled.rss_bytes), f.last.resident_bytes);
  uint64_t sampled_anon = max_u64(load_relaxed(&sampled.anon_bytes), f.last.anon_bytes());
  // The kernel's peaks are never below what was sampled (a sampler-written record
  // of a dead process may only have the samples). Neither read nor sampled (an
  // image in a chroot without /proc that ended before a sample): unknown, left out.
  uint64_t vm_peak = max_u64(f.peaks.vm_peak_bytes, sampled_size);
  uint64_t rss_peak = max_u64(f.peaks.rss_peak_bytes, sampled_rss);
  if (vm_peak) out.field(kVmPeak, vm_peak);
  if (rss_peak) out.field(kRssPeak, rss_peak);
  out.field(kSampledSizePeak, sampled_size);
  out.field(kSampledRssPeak, sampled_rss);
  out.field(kSampledRssAnonPeak, sampled_anon);
  out.field(kSamples, load_relaxed(&sampled.samples));
  const KernelCounters& k = f.counters;
  if (k.have_faults)
    out.field(kMinorFaults, k.minor_faults), out.field(kMajorFaults, k.major_faults);
  if (k.have_ctxsw)
    out.field(kVoluntaryCtxsw, k.voluntary_ctxsw),
        out.field(kInvoluntaryCtxsw, k.involuntary_ctxsw);
  if (k.have_storage) out.field(kReadBytes, k.read_bytes), out.field(kWriteBytes, k.write_bytes);
  if (k.have_call_bytes) out.field(kRchar, k.rchar), out.field(kWchar, k.wchar);
  if (src.counted) out.field_fixed(kSamplerCpu, load_relaxed(&region->sampler_cpu_ns) / 1000, 6);
  out.field_string(kEnd, end_name(ending.kind));
  if (ending.kind == EndKind::kExit) {
    if (ending.code_known) out.field_int(kExitCode, ending.code);
  } else if (ending.kind == EndKind::kSignal || ending.kind == EndKind::kKilled) {
    if (ending.code_known) out.field_int(kSignal, ending.code);
  }
  out.field_string(kWrittenBy, writer_name(ending.writer));
  if (src.timeline) {
    // Wait out a point being added (the sampler holds the flag for microseconds).
    for (int i = 0; i < 100000 && load_relaxed(&region->timeline_busy); ++i) __builtin_ia32_pause();
    compose_timeline(out, src.timeline);
  }
  if (src.backtraces)
    compose_backtraces(out, src.backtraces, src.identity->exe(), ending.kind != EndKind::kExec);
  out.end_object();
  out.put('\n');
}

void compose_tree_record(TextBuffer& out, const TreeFigures& tree) {
  using namespace keys;
  out.begin_object();
  out.field(kSchema, 1);
  out.field_string(kKind, "tree");
  out.field_string(kTest, tree.test);
  out.field_string(kOp, tree.op);
  char host[kHostCapacity];
  if (!tree.host) read_host_name(host, sizeof host);
  out.field_string(kHost, tree.host ? tree.host : host);
  out.field(kRun, tree.run);
  if (tree.command_argc > 0) {
    out.key(kCommand);
    out.put('[');
    for (int i = 0; i < tree.command_argc; ++i) {
      if (i) out.put(',');
      out.put_json_string(tree.command[i], string_length(tree.command[i]));
    }
    out.put(']');
  }
  out.field(kStartNs, tree.start_ns);
  out.field(kEndNs, tree.end_ns);
  if (tree.tree_end_ns) out.field(kTreeEndNs, tree.tree_end_ns);
  out.field(kProcesses, tree.processes);
  if (tree.processes_without_shim) out.field(kProcessesWithoutShim, tree.processes_without_shim);
  out.field(kSampledSizePeak, tree.peaks.size_bytes);
  out.field(kSampledRssPeak, tree.peaks.rss_bytes);
  out.field(kSampledRssAnonPeak, tree.peaks.anon_bytes);
  out.field(kSamples, tree.peaks.samples);
  if (tree.have_sampler_cpu) out.field_fixed(kSamplerCpu, tree.sampler_cpu_ns / 1000, 6);
  if (tree.have_waited) {
    out.field_fixed(kWaitedCpu, tree.waited_cpu_ns / 1000, 6);
    out.field(kWaitedMaxRss, tree.waited_max_rss_bytes);
  }
  if (tree.have_status) {
    Ending e = ending_from_wait_status(true, tree.wait_status, Writer::kProcess);
    if (e.kind == EndKind::kExit)
      out.field_int(kExitCode, e.code);
    else
      out.field_int(kSignal, e.code);
  }
  out.key(kAborted);
  out.put(tree.aborted ? "true" : "false");
  if (tree.interrupted) out.field_int(kInterrupted, tree.interrupted);
  if (tree.killed_after) out.field(kKilledAfter, tree.killed_after);
  if (tree.have_cgroup_memory_peak) out.field(kCgroupMemoryPeak, tree.cgroup_memory_peak_bytes);
  if (tree.have_pids_peak) out.field(kPidsPeak, tree.pids_peak);
  if (tree.stop_signal_count > 0) {
    out.key(kStopSignals);
    out.put('[');
    for (int i = 0; i < tree.stop_signal_count; ++i) {
      if (i) out.put(',');
      out.put_int(tree.stop_signals[i]);
    }
    out.put(']');
  }
  if (tree.watch_start_ns) out.field(kWatchStartNs, tree.watch_start_ns);
  if (tree.unseen_source[0]) {
    out.field(kUnseenProcesses, tree.unseen_processes);
    out.field_fixed(kUnseenCpu, tree.unseen_cpu_ns / 1000, 6);
    out.field_string(kUnseenSource, tree.unseen_source);
  }
  out.end_object();
  out.put('\n');
}

void compose_summary(TextBuffer& out, const RecordSource& src, const FinalFigures& f,
                     const Ending& ending) {
  const Identity& id = *src.identity;
  Totals t = sum_slots(src.region);
  const char* name = id.argc > 0 ? id.argv() : id.exe();
  const char* slash = nullptr;
  for (const char* p = name; *p; ++p)
    if (*p == '/') slash = p;
  out.put("account: ");
  out.put(slash ? slash + 1 : name);
  out.put('[');
  out.put_int(record_pids(id, src.region).pid);
  out.put("] ");
  out.put(end_name(ending.kind));
  if (ending.kind == EndKind::kExit && ending.code_known) out.put(' '), out.put_int(ending.code);
  out.put(": cpu ");
  out.put_fixed((f.cpu_user_ns + f.cpu_sys_ns) / 10000000, 2);
  out.put("s, peak size ");
  put_mib(out, f.peaks.vm_peak_bytes);
  out.put(", resident ");
  put_mib(out, f.peaks.rss_peak_bytes);
  out.put(", copied ");
  put_mib(out, t.copied_bytes);
  out.put(" (");
  out.put_uint(t.copied_calls);
  out.put(" calls), malloc ");
  put_mib(out, t.malloc_bytes);
  out.put(" (");
  out.put_uint(t.malloc_calls);
  out.put(" calls, ");
  out.put_uint(t.free_calls);
  out.put(" frees, heap peak ");
  put_mib(out, uint64_t(t.heap_peak_bytes > 0 ? t.heap_peak_bytes : 0));
  out.put(")");
  if (!malloc_was_the_shims(src.malloc_found, t.malloc_calls))
    out.put(" [malloc not seen: another allocator precedes the shim]");
  out.put("\n");
}

namespace {

// Appends to the output at `path` (the output of `settings`, expanded).
int append_to(const Settings& settings, const char* path, const char* data, uint64_t len) {
  int fd = open_output(path, settings.output_pinned);
  if (fd < 0) return -fd;
  // A writer that died mid-line (another tool, a full disk) left the file
  // without its final newline: start on a line of our own rather than glue our
  // record to the broken one. One writev keeps the append a single operation.
  // The check and the write happen under an exclusive flock, or a writer
  // could see another's record half-copied and add a needless blank line.
  // Bounded: a lock held elsewhere for more than a second is said (warn is
  // one write(2) from a stack buffer: async-signal-safe) and ignored, so the
  // record is still written.
  // A second on the clock, read only once the lock is found held (a count of
  // 1 ms sleeps lasts several seconds on a loaded machine).
  uint64_t deadline = 0;
  while (len > 0 && raw_flock(fd, LOCK_EX | LOCK_NB) == -EWOULDBLOCK) {
    uint64_t now = raw_clock_ns(CLOCK_MONOTONIC);
    if (deadline == 0) deadline = now + 1000000000ull;
    if (now >= deadline) {
      warn("the lock on ", path,
           " was held for 1 s by another process; writing the record without it");
      break;
    }
    timespec pause = {0, 1000000};
    nanosleep(&pause, nullptr);
  }
  char newline = '\n';
  iovec parts[2] = {{&newline, 0}, {const_cast<char*>(data), len}};
  struct stat st;
  bool have_stat = raw_fstat(fd, &st) == 0;
  // The run's own file, or nothing: another file at its path (one another
  // user made after the run removed it) gets no record.
  if (settings.output_pinned && (!have_stat || uint64_t(st.st_dev) != settings.output_dev ||
                                 uint64_t(st.st_ino) != settings.output_ino)) {
    raw_close(fd);
    return ESTALE;
  }
  // Records (argv included) never go into a file, or to the reader of a FIFO,
  // of another user: a 0666 file or a FIFO someone made in a shared directory
  // before the run or the program created its own.
  if (have_stat && owned_by_another_user(fd, st)) {
    raw_close(fd);
    return EPERM;
  }
  // A record that would pass RLIMIT_FSIZE is not written at all: no part
  // line, and no SIGXFSZ for the program (`+ 1`: a newline may go first).
  if (len > 0 && have_stat && S_ISREG(st.st_mode) &&
      !raw_within_file_size_limit(uint64_t(st.st_size) + 1 + len)) {
    raw_close(fd);
    return EFBIG;
  }
  char last;
  if (len > 0 && have_stat && st.st_size > 0 && raw_pread(fd, &last, 1, st.st_size - 1) == 1 &&
      last != '\n')
    parts[0].iov_len = 1;
  int err = 0;
  long n;
  // The start-up check writes nothing: write(2) still reports a full device
  // (/dev/full), where writev of nothing would not even ask.
  do n = len == 0 ? raw_write(fd, data, 0) : raw_writev(fd, parts, 2);
  while (n == -EINTR);
  if (n < 0)
    err = int(-n);
  else if (uint64_t(n) != len + parts[0].iov_len)
    err = ENOSPC;
  raw_close(fd);
  return err;
}

// Out of line: its path buffer (4 KiB) takes stack only where a %p needs it.
__attribute__((noinline)) int append_expanded(const Settings& settings, int pid, const char* data,
                                              uint64_t len) {
  char path[kPathCapacity];
  return append_record(settings, pid, data, len, path, sizeof path);
}

}  // namespace

int append_record(const Settings& settings, int pid, const char* data, uint64_t len, char* path,
                  uint64_t path_cap) {
  expand_output_path(settings, pid, path, path_cap);
  return append_to(settings, path, data, len);
}

bool g_output_warned = false;

bool check_output_writable(const Settings& settings, int pid) {
  char path[kPathCapacity];
  int err = append_record(settings, pid, "", 0, path, sizeof path);
  if (err == 0) return true;
  g_output_warned = true;
  warn("cannot write records to ACCOUNT_OUTPUT=", path, ": ",
       err == ELOOP ? "it is a symbolic link, or a path through one (refused)"
       : settings.output_pinned && (err == ESTALE || err == ENOENT)
           ? "it is not the file account run made (the run is over; refused)"
       : err == EPERM ? "it is owned by another user (refused)"
       : err == ENXIO ? "it is a FIFO no process reads (refused)"
                      : strerrordesc_np(err),
       "; this process is not recorded");
  return false;
}

void warn_record_lost(const Settings& settings, int pid, int err) {
  if (g_output_warned) return;
  g_output_warned = true;
  char path[kPathCapacity];
  expand_output_path(settings, pid, path, sizeof path);
  warn("cannot write the record to ", path, ": ", strerrordesc_np(err));
}

// Room for the longest record this image can produce: argv escaped at worst six
// bytes a byte, timeline numbers at most 21 characters each.
size_t record_capacity(const RecordSource& src) {
  size_t points = src.timeline ? src.timeline->state.capacity : 0;
  size_t backtraces = src.backtraces ? backtrace_record_capacity(src.backtraces) : 0;
  return 64 * 1024 + 6 * src.identity->argv_len + 6 * 2 * kPathCapacity + points * 5 * 22 +
         backtraces;
}

namespace {
// Room for nearly every record too long for the stack (kStackRecordBytes):
// composed here, it costs no mmap. Only the one writer that claimed an image's
// record uses it (the claim is a compare-and-swap), in its own address space.
// Used from its first page boundary on, so a record under 4 KiB costs the image
// one page fault, not two. (alignas(4096) would page-align all of .bss, whose
// small variables now share the page ld.so zeroes anyway.)
constexpr size_t kRecordStorageBytes = 16 * 1024;
ACCOUNT_LARGE_BSS char g_record_storage[kRecordStorageBytes + 4096];

char* record_storage() {
  auto at = reinterpret_cast<uintptr_t>(g_record_storage);
  return reinterpret_cast<char*>((at + 4095) & ~uintptr_t(4095));
}
}  // namespace

bool compose_for_output(const RecordSource& src, const FinalFigures& figures, const Ending& ending,
                        char* stack_room, ComposedRecord* out) {
  *out = ComposedRecord{};
  out->to_stderr = !src.settings->has_output;
  auto compose = [&](char* storage, size_t capacity) {
    TextBuffer text(storage, capacity);
    if (out->to_stderr)
      compose_summary(text, src, figures, ending);
    else
      compose_record(text, src, figures, ending);
    out->data = storage;
    out->size = text.size();
    return !text.overflowed();
  };
  if (compose(stack_room, kStackRecordBytes)) return true;
  if (compose(record_storage(), kRecordStorageBytes)) return true;
  size_t capacity = record_capacity(src);
  void* storage =
      mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (storage == MAP_FAILED) return false;
  out->mapping = storage;
  out->mapping_size = capacity;
  if (compose(static_cast<char*>(storage), capacity)) return true;  // record_capacity bounds it
  munmap(storage, capacity);
  *out = ComposedRecord{};
  return false;
}

int write_composed(ComposedRecord* record, const RecordSource& src) {
  int err = 0;
  if (record->to_stderr) {
    ssize_t ignored = write(2, record->data, record->size);
    (void)ignored;
  } else if (record->data) {
    // An output without a % (always the run's) is its own path: no copy, and
    // no 4-KiB buffer beside the record on a stack that is deep enough already.
    const Settings& settings = *src.settings;
    err = has_placeholder(settings.output)
              ? append_expanded(settings, src.identity->pid, record->data, record->size)
              : append_to(settings, settings.output, record->data, record->size);
  }
  if (record->mapping) munmap(record->mapping, record->mapping_size);
  *record = ComposedRecord{};
  return err;
}

int emit(const RecordSource& src, const FinalFigures& figures, const Ending& ending) {
  ComposedRecord record;
  char stack_room[kStackRecordBytes];
  if (!compose_for_output(src, figures, ending, stack_room, &record)) return ENOMEM;
  return write_composed(&record, src);
}

namespace {

// True if the last 64 KiB of the output hold the process record of (pid, start).
bool record_in_output(const Settings& settings, int pid, uint64_t start_ns) {
  if (!settings.has_output) return false;
  char path[kPathCapacity];
  expand_output_path(settings, pid, path, sizeof path);
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  fd = fd_above_stdio(fd);
  constexpr size_t kTail = 64 * 1024;
  void* tail = mmap(nullptr, kTail, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct stat st;
  bool found = false;
  if (tail != MAP_FAILED && fstat(fd, &st) == 0) {
    off_t from = st.st_size > off_t(kTail) ? st.st_size - off_t(kTail) : 0;
    ssize_t n = pread(fd, tail, kTail, from);
    char pid_key[48], start_key[48];
    TextBuffer a(pid_key, sizeof pid_key - 1), b(start_key, sizeof start_key - 1);
    a.put("\"pid\":"), a.put_int(pid), a.put(',');
    b.put("\"start_ns\":"), b.put_uint(start_ns), b.put(',');
    pid_key[a.size()] = 0, start_key[b.size()] = 0;
    // Line by line: both keys on one line.
    const char* text = static_cast<const char*>(tail);
    for (ssize_t i = 0; n > 0 && i < n && !found;) {
      ssize_t end = i;
      while (end < n && text[end] != '\n') ++end;
      const char* p =
          static_cast<const char*>(memmem(text + i, size_t(end - i), pid_key, a.size()));
      found = p && memmem(text + i, size_t(end - i), start_key, b.size());
      i = end + 1;
    }
  }
  if (tail != MAP_FAILED) munmap(tail, kTail);
  close(fd);
  return found;
}

}  // namespace

bool claim_dead_image_record(Region* region, const Settings& settings, int pid, uint64_t start_ns,
                             bool* handed_over) {
  uint32_t state = __atomic_load_n(&region->image_state, __ATOMIC_ACQUIRE);
  if (handed_over) *handed_over = state == kHandedOver;
  if (state == kWriting && record_in_output(settings, pid, start_ns)) return false;
  if (state != kRunning && state != kWriting && state != kHandedOver) return false;
  return __atomic_compare_exchange_n(&region->image_state, &state, kRecorded, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

namespace {
struct Handover {
  FinalFigures figures;
  Ending ending;
};
static_assert(sizeof(Handover) <= kHandoverBytes, "Region::handover holds a Handover");
}  // namespace

void hand_over_record(Region* region, const FinalFigures& figures, const Ending& ending) {
  Handover h{figures, ending};
  bootstrap_move(region->handover, &h, sizeof h);  // the shim's own copy: never counted
  __atomic_store_n(&region->image_state, uint32_t(kHandedOver), __ATOMIC_RELEASE);
}

void read_handover(const Region* region, FinalFigures* figures, Ending* ending) {
  Handover h;
  bootstrap_move(&h, region->handover, sizeof h);
  *figures = h.figures;
  *ending = h.ending;
}

bool handed_over_exec(const Region* region) {
  if (__atomic_load_n(&region->image_state, __ATOMIC_ACQUIRE) != kHandedOver) return false;
  FinalFigures figures;
  Ending ending;
  read_handover(region, &figures, &ending);
  return ending.kind == EndKind::kExec;
}

void leave_sandbox_ending(Region* region, const Ending& ending) {
  int status = ending.kind == EndKind::kExit ? (ending.code & 0xff) << 8 : ending.code & 0x7f;
  __atomic_store_n(&region->sandbox_end_status, status, __ATOMIC_RELAXED);
  __atomic_store_n(&region->sandbox_end_left, 1u, __ATOMIC_RELEASE);
}

Ending ending_of_dead_image(const Region* region, const Ending& seen) {
  if (seen.code_known || !__atomic_load_n(&region->sandbox_end_left, __ATOMIC_ACQUIRE)) return seen;
  return ending_from_wait_status(
      true, __atomic_load_n(&region->sandbox_end_status, __ATOMIC_RELAXED), seen.writer);
}

}  // namespace account
