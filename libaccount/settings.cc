#include "settings.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "atomics.h"
#include "real_copy.h"
#include "text_buffer.h"
#include "values.h"

namespace account {

Settings g_settings;
ACCOUNT_LARGE_BSS Identity g_identity;

void copy_string(char* dst, size_t cap, const char* src) {
  size_t n = string_length(src);
  if (n >= cap) n = cap - 1;
  uncounted_copy(dst, src, n);
  dst[n] = 0;
}

void read_host_name(char* dst, size_t cap) {
  static_assert(sizeof(utsname::nodename) <= kHostCapacity);
  utsname names;
  if (uname(&names) != 0) names.nodename[0] = 0;
  copy_string(dst, cap, names.nodename);
}

namespace {

// Resolves a relative path against the directory at start-up.
void absolute_path(char* dst, size_t cap, const char* path) {
  if (path[0] == '/') return copy_string(dst, cap, path);
  char cwd[kPathCapacity];
  if (!getcwd(cwd, sizeof cwd)) return copy_string(dst, cap, path);
  TextBuffer out(dst, cap - 1);
  out.put(cwd);
  if (out.size() == 0 || cwd[out.size() - 1] != '/') out.put('/');
  out.put(path);
  dst[out.size()] = 0;
}

}  // namespace

void warn(const char* a, const char* b, const char* c, const char* d, const char* e) {
  char storage[1024];
  TextBuffer line(storage, sizeof storage - 1);
  line.put("account: ");
  const char* parts[] = {a, b, c, d, e};
  for (const char* part : parts)
    if (part) line.put(part);
  line.put('\n');
  if (line.overflowed()) storage[sizeof storage - 2] = '\n';
  ssize_t ignored = write(2, line.data(), line.size());
  (void)ignored;
}

void load_settings() {
  Settings& s = g_settings;
  if (const char* v = getenv("ACCOUNT_OUTPUT"); v && *v) {
    s.has_output = true;
    absolute_path(s.output, sizeof s.output, v);
  }
  if (const char* v = getenv("ACCOUNT_TEST")) copy_string(s.test, sizeof s.test, v);
  if (const char* v = getenv("ACCOUNT_OP")) copy_string(s.op, sizeof s.op, v);
  uint64_t n;
  bool flag;
  if (const char* v = getenv("ACCOUNT_SAMPLE_MS"); v && *v) {
    if (parse_bounded(v, 0, 1000, &n))
      s.sample_ms = uint32_t(n);
    else
      warn("ACCOUNT_SAMPLE_MS=", v,
           " is not a whole number of milliseconds from 0 to 1000; using 5");
  }
  if (const char* v = getenv("ACCOUNT_TIMELINE"); v && *v) {
    if (parse_flag(v, &flag))
      s.timeline = flag;
    else
      warn("ACCOUNT_TIMELINE=", v, " is not 0 or 1; using 0");
  }
  if (const char* v = getenv("ACCOUNT_TIMELINE_POINTS"); v && *v) {
    if (parse_bounded(v, 16, 65536, &n))
      s.timeline_points = uint32_t(n);
    else
      warn("ACCOUNT_TIMELINE_POINTS=", v,
           " is not a number of points from 16 to 65536; using 2048");
  }
  if (const char* v = getenv("ACCOUNT_BACKTRACE_MIN"); v && *v) {
    if (parse_size(v, &n) && n > 0)
      s.backtrace_min = n;
    else
      warn("ACCOUNT_BACKTRACE_MIN=", v,
           " is not a size such as 4096, 64K, 10M or 1G; backtraces stay off");
  }
  if (const char* v = getenv("ACCOUNT_BACKTRACE_DEPTH"); v && *v) {
    if (parse_bounded(v, 1, 256, &n))
      s.backtrace_depth = uint32_t(n);
    else
      warn("ACCOUNT_BACKTRACE_DEPTH=", v, " is not a number of frames from 1 to 256; using 32");
  }
  if (const char* v = getenv("ACCOUNT_BACKTRACE_LOG"); v && *v)
    absolute_path(s.backtrace_log, sizeof s.backtrace_log, v);
  if (const char* v = getenv("ACCOUNT_LIBC_COPIES"); v && *v) {
    if (parse_flag(v, &flag))
      s.libc_copies = flag;
    else
      warn("ACCOUNT_LIBC_COPIES=", v, " is not 0 or 1; using 1");
  }
  if (const char* v = getenv("ACCOUNT_ARGV"); v && *v) {
    if (parse_flag(v, &flag))
      s.record_argv = flag;
    else
      warn("ACCOUNT_ARGV=", v, " is not 0 or 1; using 1");
  }
}

void capture_identity(int argc, char** argv) {
  Identity& id = g_identity;
  id.pid = getpid();
  id.ppid = getppid();
  read_host_name(id.host, sizeof id.host);
  ssize_t n = readlink("/proc/self/exe", id.exe, sizeof id.exe - 1);
  id.exe[n > 0 ? n : 0] = 0;
  id.argc = argc;
  size_t len = 0;
  for (int i = 0; argv && i < argc && argv[i]; ++i) {
    size_t arg = string_length(argv[i]) + 1;
    if (len + arg > sizeof id.argv) {
      id.argv_truncated = true;
      id.argc = i;
      break;
    }
    uncounted_copy(id.argv + len, argv[i], arg);
    len += arg;
  }
  id.argv_len = len;
}

void mark_image_start() {
  g_identity.start_realtime_ns = realtime_ns();
  g_identity.start_monotonic_ns = monotonic_ns();
}

void restart_identity_after_fork() {
  g_identity.pid = getpid();
  g_identity.ppid = getppid();
  mark_image_start();
}

uint64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

}  // namespace account
