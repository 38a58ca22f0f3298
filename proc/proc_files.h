/// Reading /proc without allocation or stdio: safe in the shim, in a fork child
/// and in the sampler process. Descriptors stay open and are re-read with pread,
/// as a sampler reads the same file every few milliseconds.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

namespace account {

struct MemoryNow {  // /proc/PID/statm
  uint64_t size_bytes = 0;
  uint64_t resident_bytes = 0;
  uint64_t shared_bytes = 0;  // resident pages backed by a file or shared memory
  uint64_t threads = 0;       // status's Threads (statm has none): 0 when not read
  /// Resident anonymous memory: what the program allocated rather than mapped.
  uint64_t anon_bytes() const {
    return resident_bytes > shared_bytes ? resident_bytes - shared_bytes : 0;
  }
};

struct MemoryPeaks {  // /proc/PID/status
  uint64_t vm_peak_bytes = 0;
  uint64_t rss_peak_bytes = 0;
  bool valid = false;
  /// Read with the peaks from outside (the samplers' status reads); a zombie
  /// still has them.
  uint64_t voluntary_ctxsw = 0, involuntary_ctxsw = 0;
  bool have_ctxsw = false;
};

struct CpuAndExit {  // /proc/PID/stat
  uint64_t user_ns = 0;
  uint64_t sys_ns = 0;
  /// Fields 16, 17: CPU of the children it has waited for (and of theirs that
  /// were waited for in turn), added when they were reaped.
  uint64_t children_user_ns = 0;
  uint64_t children_sys_ns = 0;
  int exit_code = 0;  // raw wait status (field 52), meaningful for a zombie
  char state = 0;     // R, S, D, Z, ...
  int ppid = 0;
  uint64_t start_ticks = 0;   // field 22: clock ticks after boot when it started
  int exit_signal = 0;        // field 38: 0 for a clone child nobody is told about
  uint64_t minor_faults = 0;  // field 10 (minflt)
  uint64_t major_faults = 0;  // field 12 (majflt)
  char comm[16] = {};         // field 2: the program's name (a zombie still has it)
  bool valid = false;
};

/// The kernel's per-process counters (docs/counters.md): from getrusage in the
/// process itself, or from /proc/PID/stat, status and io from outside. Each
/// group is recorded only when it was read.
struct KernelCounters {
  uint64_t minor_faults = 0, major_faults = 0;
  uint64_t voluntary_ctxsw = 0, involuntary_ctxsw = 0;
  uint64_t read_bytes = 0, write_bytes = 0;  // from and to storage
  uint64_t rchar = 0, wchar = 0;             // through read- and write-like calls
  bool have_faults = false, have_ctxsw = false;
  bool have_storage = false;     // read_bytes, write_bytes
  bool have_call_bytes = false;  // rchar, wchar
};

/// The decimal number at p (digits only) into *out; the first character after
/// it, or nullptr when p does not start with a digit.
const char* read_uint(const char* p, uint64_t* out);

/// Reads the whole file at fd from offset 0 into buf (NUL-terminated); returns the
/// length or -1.
ssize_t pread_text(int fd, char* buf, size_t cap);

bool parse_statm(const char* text, MemoryNow* out);
/// VmPeak and VmHWM (valid), and the context switches (have_ctxsw).
bool parse_status_peaks(const char* text, MemoryPeaks* out);
/// The current figures from status (VmSize, VmRSS, RssFile + RssShmem): what
/// statm says, so one read of status gives both the peaks and the present.
bool parse_status_now(const char* text, MemoryNow* out);
/// Both of the above in one pass over the text.
bool parse_status(const char* text, MemoryPeaks* peaks, MemoryNow* now);
bool parse_stat(const char* text, CpuAndExit* out);
/// A process's pid in a pid namespace below the one of the /proc that shows
/// it: the last of the pids on its status's NSpid line, when that lists more
/// than one. 0 when it lists one (the process is in this /proc's namespace)
/// or none (a kernel without the line).
pid_t parse_status_nested_pid(const char* text);
/// /proc/PID/io: rchar, wchar (have_call_bytes), read_bytes, write_bytes
/// (have_storage). A process's file adds the I/O of the children it reaped.
bool parse_io(const char* text, KernelCounters* out);

/// The last pid handed out in this pid namespace, /proc/loadavg's last field
/// ("0.10 0.20 0.30 2/150 12345"). Every fork and every new thread anywhere
/// in the namespace (or below it) moves it.
bool parse_loadavg_last_pid(const char* text, uint64_t* out);
/// Whether /proc/PID/uid_map's text (lines "inside outside count") maps `uid`
/// as the process sees it (inside); an empty map maps none.
bool parse_uid_map_maps(const char* text, uint64_t uid);

/// The one rule for descriptors opened inside a program: a process started with
/// 0, 1 or 2 closed must not find them taken. Moves fd above 2 (close-on-exec)
/// and returns the new descriptor (or fd itself when it already is, or -1).
int fd_above_stdio(int fd);

/// Opens /proc/<pid>/<name> (pid 0: self) read-only, close-on-exec.
int open_proc_file(pid_t pid, const char* name);
/// Opens /proc/thread-self/<name>: the calling thread's own.
int open_thread_self_file(const char* name);
/// Opens /proc/<pid>/task/<tid>/<name> read-only, close-on-exec.
int open_task_file(pid_t pid, pid_t tid, const char* name);
/// A thread of process `pid`, not its leader, whose memory still reads (its
/// statm is not all zeros): opens that statm, returns it and sets *tid; -1
/// when there is none. For a process whose leader thread has ended while
/// others run (pthread_exit from main): /proc/<pid> then reads as a zombie's.
int open_live_thread_statm(pid_t pid, pid_t* tid);

bool read_statm(int fd, MemoryNow* out);
bool read_status_peaks(int fd, MemoryPeaks* out);
/// Peaks and present from one read of status.
bool read_status(int fd, MemoryPeaks* peaks, MemoryNow* now);
bool read_stat(int fd, CpuAndExit* out);
bool read_io(int fd, KernelCounters* out);

bool read_loadavg_last_pid(int fd, uint64_t* out);
/// parse_uid_map_maps of the file at fd; true when it cannot be read.
bool read_uid_map_maps(int fd, uint64_t uid);

}  // namespace account
