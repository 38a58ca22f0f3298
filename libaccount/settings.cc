#include "settings.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "atomics.h"
#include "proc_pids.h"
#include "raw_syscall.h"
#include "real_copy.h"
#include "text_buffer.h"
#include "values.h"

namespace account {

ACCOUNT_SETTINGS_DATA Settings g_settings;
ACCOUNT_IDENTITY_BSS Identity g_identity;

void copy_string(char* dst, size_t cap, const char* src) {
  size_t n = string_length(src);
  if (n >= cap) n = cap - 1;
  bootstrap_move(dst, src, n);
  dst[n] = 0;
}

void Identity::set_exe(const char* path, size_t len) {
  if (len > kPathCapacity - 1) len = kPathCapacity - 1;
  bootstrap_move(text + len + 1, argv_storage(), argv_len);  // by exe's change in length
  bootstrap_move(text, path, len);
  text[len] = 0;
  exe_len = uint32_t(len);
}

void Identity::set_argv(const char* nul_separated, size_t len) {
  if (len > kArgvCapacity) len = kArgvCapacity;
  bootstrap_move(argv_storage(), nul_separated, len);
  argv_len = len;
}

namespace {

// Set by the shim's first constructor, which runs after libc's initializer:
// from then on environ is the program's (NULL after a clearenv()).
bool g_environ_set;
__attribute__((constructor(101))) void note_environ_set() {
  g_environ_set = true;
}

// An executable's .preinit_array runs before libc's initializer has set
// environ: a call the shim counts there (ASan's __asan_init copies with
// memcpy) maps the image's Region, which reads ACCOUNT_RUN_DIR. The
// environment is then where the kernel put it: after argc and argv on the
// initial stack, whose address ld.so keeps in __libc_stack_end.
char** environment() {
  if (environ || g_environ_set) return environ;
  auto* stack_end = static_cast<long**>(dlsym(RTLD_DEFAULT, "__libc_stack_end"));
  if (!stack_end || !*stack_end) return nullptr;
  long* argc = *stack_end;
  return reinterpret_cast<char**>(argc + 1 + *argc + 1);
}

}  // namespace

char* const* find_env_entry_in(char* const* env, const char* name) {
  size_t len = string_length(name);
  for (char* const* e = env; e && *e; ++e) {
    const char* v = *e;
    size_t i = 0;
    while (i < len && v[i] == name[i]) ++i;
    if (i == len && v[i] == '=') return e;
  }
  return nullptr;
}

char** find_env_entry(const char* name) {
  return const_cast<char**>(find_env_entry_in(environment(), name));
}

const char* find_env(const char* name) {
  char** e = find_env_entry(name);
  return e ? *e + string_length(name) + 1 : nullptr;
}

bool secure_execution() {
  return getauxval(AT_SECURE) != 0;
}

void read_host_name(char* dst, size_t cap) {
  static_assert(sizeof(utsname::nodename) <= kHostCapacity);
  utsname names;
  if (raw_syscall(SYS_uname, long(&names)) != 0) names.nodename[0] = 0;
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

bool parse_file_id(const char* v, uint64_t* dev, uint64_t* ino) {
  char first[24];
  size_t i = 0;
  while (v[i] && v[i] != ':' && i < sizeof first - 1) first[i] = v[i], ++i;
  first[i] = 0;
  return v[i] == ':' && parse_bounded(first, 0, ~0ull, dev) &&
         parse_bounded(v + i + 1, 1, ~0ull, ino);
}

void load_settings() {
  Settings& s = g_settings;
  if (const char* v = find_env("ACCOUNT_OUTPUT"); v && *v) {
    s.has_output = true;
    absolute_path(s.output, sizeof s.output, v);
  }
  if (const char* v = find_env("ACCOUNT_OUTPUT_ID"); v && *v && s.has_output) {
    if (parse_file_id(v, &s.output_dev, &s.output_ino))
      s.output_pinned = true;
    else
      warn("ACCOUNT_OUTPUT_ID=", v, " is not DEV:INO; the output is not pinned");
  }
  if (const char* v = find_env("ACCOUNT_TEST")) copy_string(s.test, sizeof s.test, v);
  if (const char* v = find_env("ACCOUNT_OP")) copy_string(s.op, sizeof s.op, v);
  uint64_t n;
  bool flag;
  if (const char* v = find_env("ACCOUNT_SAMPLE_MS"); v && *v) {
    if (parse_bounded(v, 0, 1000, &n))
      s.sample_ms = uint32_t(n);
    else
      warn("ACCOUNT_SAMPLE_MS=", v,
           " is not a whole number of milliseconds from 0 to 1000; using 5");
  }
  if (const char* v = find_env("ACCOUNT_TIMELINE"); v && *v) {
    if (parse_flag(v, &flag))
      s.timeline = flag;
    else
      warn("ACCOUNT_TIMELINE=", v, " is not 0 or 1; using 0");
  }
  if (const char* v = find_env("ACCOUNT_TIMELINE_POINTS"); v && *v) {
    if (parse_bounded(v, 16, 65536, &n))
      s.timeline_points = uint32_t(n);
    else
      warn("ACCOUNT_TIMELINE_POINTS=", v,
           " is not a number of points from 16 to 65536; using 2048");
  }
  if (const char* v = find_env("ACCOUNT_BACKTRACE_MIN"); v && *v) {
    if (parse_size(v, &n) && n > 0)
      s.backtrace_min = n;
    else
      warn("ACCOUNT_BACKTRACE_MIN=", v,
           " is not a size such as 4096, 64K, 10M or 1G; backtraces stay off");
  }
  if (const char* v = find_env("ACCOUNT_BACKTRACE_LEAKS"); v && *v) {
    if (parse_flag(v, &flag))
      s.backtrace_leaks = flag;
    else
      warn("ACCOUNT_BACKTRACE_LEAKS=", v, " is not 0 or 1; using 0");
  }
  if (const char* v = find_env("ACCOUNT_BACKTRACE_SAMPLE"); v && *v) {
    if (parse_size(v, &n) && n > 0)
      s.backtrace_sample = n;
    else
      warn("ACCOUNT_BACKTRACE_SAMPLE=", v,
           " is not a size such as 64K or 1M; allocations are not sampled");
  }
  if (s.backtrace_sample) {
    // Every allocation enters the sampler's countdown; a sampled block's
    // figures are estimates, so blocks are not followed to their free.
    if (s.backtrace_min > 1)
      warn("ACCOUNT_BACKTRACE_SAMPLE is set: ACCOUNT_BACKTRACE_MIN is not used");
    if (s.backtrace_leaks)
      warn("ACCOUNT_BACKTRACE_SAMPLE is set: ACCOUNT_BACKTRACE_LEAKS is not used");
    s.backtrace_min = 1;
    s.backtrace_leaks = false;
  }
  // Leaks alone follow every block: a threshold of one byte.
  if (s.backtrace_leaks && s.backtrace_min == 0) s.backtrace_min = 1;
  if (const char* v = find_env("ACCOUNT_BACKTRACE_DEPTH"); v && *v) {
    if (parse_bounded(v, 1, 256, &n))
      s.backtrace_depth = uint32_t(n);
    else
      warn("ACCOUNT_BACKTRACE_DEPTH=", v, " is not a number of frames from 1 to 256; using 32");
  }
  if (const char* v = find_env("ACCOUNT_BACKTRACE_LOG"); v && *v)
    absolute_path(s.backtrace_log, sizeof s.backtrace_log, v);
  if (const char* v = find_env("ACCOUNT_LIBC_COPIES"); v && *v) {
    if (parse_flag(v, &flag))
      s.libc_copies = flag;
    else
      warn("ACCOUNT_LIBC_COPIES=", v, " is not 0 or 1; using 1");
  }
  if (const char* v = find_env("ACCOUNT_ARGV"); v && *v) {
    if (parse_flag(v, &flag))
      s.record_argv = flag;
    else
      warn("ACCOUNT_ARGV=", v, " is not 0 or 1; using 1");
  }
}

namespace {

void take_pids(Identity* id) {
  const ProcPids& p = proc_pids();
  id->pid = p.pid;
  id->ppid = p.ppid;
  id->namespace_pid = p.own != p.pid ? p.own : 0;
}

// Without /proc (a chroot that has none), the path the image was exec'd by,
// as execve(2) was given it: its length, 0 if none.
long execfn_into(char* out, size_t cap) {
  const char* execfn = reinterpret_cast<const char*>(getauxval(AT_EXECFN));
  if (!execfn) return 0;
  size_t len = string_length(execfn);
  if (len > cap) len = cap;
  bootstrap_move(out, execfn, len);
  return long(len);
}

}  // namespace

void capture_identity(int argc, char** argv) {
  Identity& id = g_identity;
  take_pids(&id);
  read_host_name(id.host, sizeof id.host);
  // Straight into place: argv is not set yet.
  long n = raw_readlink("/proc/self/exe", id.text, kPathCapacity - 1);
  if (n <= 0) n = execfn_into(id.text, kPathCapacity - 1);
  id.exe_len = uint32_t(n > 0 ? n : 0);
  id.text[id.exe_len] = 0;
  id.argc = argc;
  size_t len = 0;
  for (int i = 0; argv && i < argc && argv[i]; ++i) {
    size_t arg = string_length(argv[i]) + 1;
    if (len + arg > kArgvCapacity) {
      id.argv_truncated = true;
      id.argc = i;
      break;
    }
    bootstrap_move(id.argv_storage() + len, argv[i], arg);
    len += arg;
  }
  id.argv_len = len;
}

void mark_image_start() {
  g_identity.start_realtime_ns = realtime_ns();
  g_identity.start_monotonic_ns = monotonic_ns();
}

void restart_identity_after_fork() {
  take_pids(&g_identity);
  mark_image_start();
}

}  // namespace account
