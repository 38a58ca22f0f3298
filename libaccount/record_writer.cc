#include "record.h"

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
#include "next_allocator.h"
#include "timeline_store.h"

namespace account {

namespace {

constexpr uint64_t kMiB = 1024 * 1024;

const char* end_name(EndKind kind) {
  switch (kind) {
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

int open_output(const char* path) {
  int fd;
  // Read-write so the last byte can be checked; write-only where reading is not allowed.
  constexpr int kFlags = O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
  do fd = open(path, O_RDWR | kFlags, 0600);
  while (fd < 0 && errno == EINTR);
  if (fd < 0 && errno == EACCES) {
    do fd = open(path, O_WRONLY | kFlags, 0600);
    while (fd < 0 && errno == EINTR);
  }
  if (fd >= 0 && fd <= 2) {
    // Never hold 0, 1 or 2, even for a moment longer than needed.
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    close(fd);
    fd = high;
  }
  return fd;
}

void put_mib(TextBuffer& out, uint64_t bytes) {
  out.put_fixed(bytes * 100 / kMiB, 2);  // hundredths of MiB
  out.put(" MiB");
}

}  // namespace

void compose_record(TextBuffer& out, const Identity& id, const Settings& settings,
                    const Region* region, const FinalFigures& f, const Ending& ending) {
  Totals t = sum_slots(region);
  out.begin_object();
  out.field("schema", 1);
  out.field_string("kind", "process");
  out.field_int("pid", id.pid);
  out.field_int("ppid", id.ppid);
  out.field_string("exe", id.exe);
  out.key("argv");
  out.put('[');
  if (settings.record_argv) {
    size_t pos = 0;
    for (int i = 0; i < id.argc; ++i) {
      size_t n = string_length(id.argv + pos);
      if (i) out.put(',');
      out.put_json_string(id.argv + pos, n);
      pos += n + 1;
    }
  }
  out.put(']');
  if (id.argv_truncated) out.key("argv_truncated"), out.put("true");
  out.field_string("test", settings.test);
  out.field_string("op", settings.op);
  out.field("start_ns", id.start_realtime_ns);
  out.field("end_ns", f.end_realtime_ns);
  out.field_fixed("cpu_user_s", f.cpu_user_ns / 1000, 6);
  out.field_fixed("cpu_sys_s", f.cpu_sys_ns / 1000, 6);
  out.field("malloc_bytes", t.malloc_bytes);
  out.field("malloc_calls", t.malloc_calls);
  out.field("free_calls", t.free_calls);
  out.field("realloc_copied_bytes", t.realloc_copied_bytes);
  out.field("copied_bytes", t.copied_bytes);
  out.field("copied_calls", t.copied_calls);
  out.field("heap_peak_bytes", uint64_t(t.heap_peak_bytes > 0 ? t.heap_peak_bytes : 0));
  if (!g_malloc_interposed) out.key("malloc_interposed"), out.put("false");
  uint64_t sampled_size =
      max_u64(load_relaxed(&region->sampled_size_peak_bytes), f.last.size_bytes);
  uint64_t sampled_rss =
      max_u64(load_relaxed(&region->sampled_rss_peak_bytes), f.last.resident_bytes);
  // The kernel's peaks are never below what was sampled (a sampler-written record
  // of a dead process may only have the samples).
  out.field("vm_peak_bytes", max_u64(f.peaks.vm_peak_bytes, sampled_size));
  out.field("rss_peak_bytes", max_u64(f.peaks.rss_peak_bytes, sampled_rss));
  out.field("sampled_size_peak_bytes", sampled_size);
  out.field("sampled_rss_peak_bytes", sampled_rss);
  out.field("samples", load_relaxed(&region->samples));
  out.field_fixed("sampler_cpu_s", load_relaxed(&region->sampler_cpu_ns) / 1000, 6);
  out.field_string("end", end_name(ending.kind));
  if (ending.kind == EndKind::kExit) {
    if (ending.code_known) out.field_int("exit_code", ending.code);
  } else if (ending.kind != EndKind::kExec) {
    if (ending.code_known) out.field_int("signal", ending.code);
  }
  out.field_string("written_by", ending.by_sampler ? "sampler" : "process");
  if (g_timeline) {
    // Wait out a point being added (the sampler holds the flag for microseconds).
    for (int i = 0; i < 100000 && load_relaxed(&region->timeline_busy); ++i) __builtin_ia32_pause();
    compose_timeline(out, g_timeline);
  }
  if (g_backtrace_store) compose_backtraces(out, g_backtrace_store);
  out.end_object();
  out.put('\n');
}

void compose_summary(TextBuffer& out, const Identity& id, const Region* region,
                     const FinalFigures& f, const Ending& ending) {
  Totals t = sum_slots(region);
  const char* name = id.argc > 0 ? id.argv : id.exe;
  const char* slash = nullptr;
  for (const char* p = name; *p; ++p)
    if (*p == '/') slash = p;
  out.put("account: ");
  out.put(slash ? slash + 1 : name);
  out.put('[');
  out.put_int(id.pid);
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
  if (!g_malloc_interposed) out.put(" [malloc not seen: another allocator precedes the shim]");
  out.put("\n");
}

int append_record(const Settings& settings, int pid, const char* data, uint64_t len, char* path,
                  uint64_t path_cap) {
  expand_output_path(settings, pid, path, path_cap);
  int fd = open_output(path);
  if (fd < 0) return errno;
  // A writer that died mid-line (another tool, a full disk) left the file
  // without its final newline: start on a line of our own rather than glue our
  // record to the broken one. One writev keeps the append a single operation.
  // The check and the write happen under an exclusive flock, or a writer
  // could see another's record half-copied and add a needless blank line.
  // Bounded: a lock held elsewhere for more than a second is ignored.
  for (int i = 0; len > 0 && i < 1000 && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
       ++i) {
    timespec pause = {0, 1000000};
    nanosleep(&pause, nullptr);
  }
  char newline = '\n';
  iovec parts[2] = {{&newline, 0}, {const_cast<char*>(data), len}};
  struct stat st;
  char last;
  if (len > 0 && fstat(fd, &st) == 0 && st.st_size > 0 &&
      pread(fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
    parts[0].iov_len = 1;
  int err = 0;
  ssize_t n;
  // The start-up check writes nothing: write(2) still reports a full device
  // (/dev/full), where writev of nothing would not even ask.
  do n = len == 0 ? write(fd, data, 0) : writev(fd, parts, 2);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    err = errno;
  else if (uint64_t(n) != len + parts[0].iov_len)
    err = ENOSPC;
  close(fd);
  return err;
}

bool g_output_warned = false;

bool check_output_writable(const Settings& settings, int pid) {
  char path[kPathCapacity];
  int err = append_record(settings, pid, "", 0, path, sizeof path);
  if (err == 0) return true;
  g_output_warned = true;
  warn("cannot write records to ACCOUNT_OUTPUT=", path, ": ",
       err == ELOOP ? "it is a symbolic link (refused)" : strerrordesc_np(err),
       "; this process is not recorded");
  return false;
}

// Room for the longest record this image can produce: argv escaped at worst six
// bytes a byte, timeline numbers at most 21 characters each.
size_t record_capacity(const Identity& id) {
  size_t points = g_timeline ? g_timeline->state.capacity : 0;
  size_t backtraces = g_backtrace_store ? backtrace_record_capacity(g_backtrace_store) : 0;
  return 64 * 1024 + 6 * id.argv_len + 6 * 2 * kPathCapacity + points * 5 * 22 + backtraces;
}

void emit(const Identity& id, const Settings& settings, const Region* region,
          const FinalFigures& figures, const Ending& ending) {
  size_t capacity = record_capacity(id);
  void* storage =
      mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (storage == MAP_FAILED) return;
  emit_into(static_cast<char*>(storage), capacity, id, settings, region, figures, ending);
  munmap(storage, capacity);
}

void emit_into(char* storage, size_t capacity, const Identity& id, const Settings& settings,
               const Region* region, const FinalFigures& figures, const Ending& ending) {
  TextBuffer out(storage, capacity);
  if (!settings.has_output) {
    compose_summary(out, id, region, figures, ending);
    ssize_t ignored = write(2, out.data(), out.size());
    (void)ignored;
    return;
  }
  compose_record(out, id, settings, region, figures, ending);
  if (out.overflowed()) return;  // cannot happen: record_capacity() bounds it
  char path[kPathCapacity];
  int err = append_record(settings, id.pid, out.data(), out.size(), path, sizeof path);
  if (err != 0 && !ending.by_sampler && !g_output_warned)
    warn("cannot write the record to ", path, ": ", strerrordesc_np(err));
}

}  // namespace account
