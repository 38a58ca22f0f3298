/// What the shim knows about its process: the ACCOUNT_* settings read once at
/// start-up and the identity of the process image (pid, program, argv, labels).
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clock.h"
#include "sampling.h"  // kDefaultIntervalMs

namespace account {

constexpr size_t kPathCapacity = 4096;
constexpr size_t kLabelCapacity = 1024;
constexpr size_t kArgvCapacity = 16384;
constexpr size_t kHostCapacity = 65;  // uname(2)'s nodename, with its NUL

/// Scalars first, then the strings by how often they are long: a process
/// writes only the first pages of each (every page it writes is a page fault
/// at every process start).
struct Settings {
  bool has_output = false;
  bool timeline = false;
  bool record_argv = true;
  bool libc_copies = true;  // ACCOUNT_LIBC_COPIES: count the copies libc makes internally
  uint32_t sample_ms = kDefaultIntervalMs;  // 0: no sampler
  uint32_t timeline_points = 2048;
  uint32_t backtrace_depth = 32;
  uint64_t backtrace_min = 0;     // 0: off
  bool backtrace_leaks = false;   // ACCOUNT_BACKTRACE_LEAKS: follow captured blocks to their free
  uint64_t backtrace_sample = 0;  // ACCOUNT_BACKTRACE_SAMPLE: one capture every ~N bytes; 0 off
  /// ACCOUNT_OUTPUT_ID=DEV:INO (set by account run): records go only into that
  /// very file, never one re-created at its path after the run removed it.
  bool output_pinned = false;
  uint64_t output_dev = 0;
  uint64_t output_ino = 0;
  char test[kLabelCapacity] = {};
  char op[kLabelCapacity] = {};
  char output[kPathCapacity] = {};         // absolute; "%p" is expanded when writing
  char backtrace_log[kPathCapacity] = {};  // absolute; "" = no log; "%p" expanded
};

/// The program and its arguments are packed into one buffer, exe first and
/// argv right after it: a short command line then lies on the same page as the
/// scalars, both in the shim and in an image file (a page a start writes is a
/// page fault).
struct Identity {
  pid_t pid = 0;
  pid_t ppid = 0;
  // getpid() where /proc shows another pid (a pid namespace below the one of
  // the /proc mount: the fork child of `unshare -pf --mount-proc` before its
  // /proc is replaced), else 0.
  pid_t namespace_pid = 0;
  uint64_t start_realtime_ns = 0;
  uint64_t start_monotonic_ns = 0;
  size_t argv_len = 0;  // bytes of argv, NULs included; at most kArgvCapacity
  int argc = 0;
  bool argv_truncated = false;
  uint32_t exe_len = 0;                           // exe's length without its NUL
  char host[kHostCapacity] = {};                  // the machine's name (uname -n)
  char text[kPathCapacity + kArgvCapacity] = {};  // exe, NUL, argv (NUL-separated)

  const char* exe() const { return text; }
  const char* argv() const { return text + exe_len + 1; }
  char* argv_storage() { return text + exe_len + 1; }
  /// Bytes of text in use: what a copy of the identity must carry.
  size_t text_used() const { return exe_len + 1 + argv_len; }
  /// Sets exe (at most kPathCapacity - 1 bytes), moving any argv behind it.
  void set_exe(const char* path, size_t len);
  /// Sets argv from NUL-separated bytes (at most kArgvCapacity).
  void set_argv(const char* nul_separated, size_t len);
};

extern Settings g_settings;
extern Identity g_identity;

/// A set-user-ID, set-group-ID or file-capability program (AT_SECURE): its
/// environment is its caller's, so the shim reads no ACCOUNT_* variable and
/// writes nothing (docs/security.md).
bool secure_execution();

/// "DEV:INO", two decimal numbers (ACCOUNT_OUTPUT_ID, ACCOUNT_RUN_DIR_PARENT).
bool parse_file_id(const char* v, uint64_t* dev, uint64_t* ino);

/// Reads ACCOUNT_* from the environment; a bad value gets one line on stderr and
/// its default.
void load_settings();
void capture_identity(int argc, char** argv);
/// The image's start: the first thing the shim's constructor does.
void mark_image_start();
/// In a fork child: same program and argv, new pid and start time.
void restart_identity_after_fork();

/// This machine's name (uname(2)'s nodename) into dst: one syscall, no
/// allocation, async-signal-safe. "" if uname fails.
void read_host_name(char* dst, size_t cap);

/// Copies the string src into dst (at most cap - 1 bytes, always terminated).
void copy_string(char* dst, size_t cap, const char* src);
/// getenv(3) by a walk over environ: async-signal-safe, and no libc code touched.
const char* find_env(const char* name);
/// The environment's NAME=value entry itself (a program's environ, or the
/// kernel's before libc set it), so that it can be replaced; nullptr if none.
char** find_env_entry(const char* name);
/// The same in another environment (an exec's envp).
char* const* find_env_entry_in(char* const* env, const char* name);

/// One line "account: <message>\n" on stderr, in a single write.
void warn(const char* a, const char* b = nullptr, const char* c = nullptr, const char* d = nullptr,
          const char* e = nullptr);

}  // namespace account
