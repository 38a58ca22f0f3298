#include "proc_files.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "raw_syscall.h"

namespace account {

namespace {

long page_size() {
  static long size = 0;
  if (size == 0) size = sysconf(_SC_PAGESIZE);
  return size;
}

const char* skip_spaces(const char* p) {
  while (*p == ' ' || *p == '\t') ++p;
  return p;
}

}  // namespace

const char* read_uint(const char* p, uint64_t* out) {
  uint64_t v = 0;
  if (*p < '0' || *p > '9') return nullptr;
  while (*p >= '0' && *p <= '9') v = v * 10 + uint64_t(*p++ - '0');
  *out = v;
  return p;
}

namespace {

struct StatusField {
  const char* name;
  uint64_t* bytes;
  uint64_t scale = 1024;  // status says kB; io and the switch counts are plain
  bool found = false;
};

// Fills each field from its line "Name:   1234 kB" of /proc/PID/status text (or
// "name: 1234" of io) in
// one pass, which stops at the last field wanted (a shim pays for this read at
// every image's end). Returns whether every field was found.
template <int N>
bool read_status_fields(const char* text, StatusField (&fields)[N]) {
  int left = N;
  for (const char* line = text; *line && left;) {
    for (StatusField& f : fields) {
      if (f.found) continue;
      const char* n = f.name;
      const char* p = line;
      while (*n && *p == *n) ++p, ++n;
      if (*n || *p != ':') continue;
      uint64_t kb;
      if (read_uint(skip_spaces(p + 1), &kb)) {
        *f.bytes = kb * f.scale;
        f.found = true;
        --left;
      }
      break;
    }
    while (*line && *line != '\n') ++line;
    if (*line) ++line;
  }
  return left == 0;
}

void put_decimal(char*& p, unsigned long v) {
  char digits[20];
  int n = 0;
  do digits[n++] = char('0' + v % 10), v /= 10;
  while (v);
  while (n) *p++ = digits[--n];
}

}  // namespace

pid_t parse_status_nested_pid(const char* text) {
  const char* p = text;
  while (*p) {
    const char* line = p;
    while (*p && *p != '\n') ++p;
    if (*p) ++p;
    const char* name = "NSpid:";
    const char* q = line;
    while (*name && *q == *name) ++q, ++name;
    if (*name) continue;
    uint64_t pid = 0;
    int pids = 0;
    while (const char* next = read_uint(skip_spaces(q), &pid)) q = next, ++pids;
    return pids > 1 ? pid_t(pid) : 0;
  }
  return 0;
}

ssize_t pread_text(int fd, char* buf, size_t cap) {
  if (fd < 0 || cap == 0) return -1;
  size_t len = 0;
  while (len + 1 < cap) {
    long n = raw_pread(fd, buf + len, cap - 1 - len, static_cast<off_t>(len));
    if (n < 0) return -1;
    if (n == 0) break;
    len += size_t(n);
    // /proc files are made whole at the first read: a short read is the end.
    if (size_t(n) < cap - 1 - (len - size_t(n))) break;
  }
  buf[len] = 0;
  return ssize_t(len);
}

bool parse_statm(const char* text, MemoryNow* out) {
  uint64_t size, resident, shared = 0;
  const char* p = read_uint(text, &size);
  if (!p) return false;
  p = read_uint(skip_spaces(p), &resident);
  if (!p) return false;
  if (const char* q = read_uint(skip_spaces(p), &shared); !q) shared = 0;
  out->size_bytes = size * uint64_t(page_size());
  out->resident_bytes = resident * uint64_t(page_size());
  out->shared_bytes = shared * uint64_t(page_size());
  return true;
}

bool parse_status_peaks(const char* text, MemoryPeaks* out) {
  StatusField fields[] = {{"VmPeak", &out->vm_peak_bytes},
                          {"VmHWM", &out->rss_peak_bytes},
                          {"voluntary_ctxt_switches", &out->voluntary_ctxsw, 1},
                          {"nonvoluntary_ctxt_switches", &out->involuntary_ctxsw, 1}};
  read_status_fields(text, fields);
  out->valid = fields[0].found && fields[1].found;
  out->have_ctxsw = fields[2].found && fields[3].found;
  return out->valid;
}

bool parse_status_now(const char* text, MemoryNow* out) {
  uint64_t file = 0, shmem = 0;
  StatusField fields[] = {{"VmSize", &out->size_bytes},
                          {"VmRSS", &out->resident_bytes},
                          {"RssFile", &file},
                          {"RssShmem", &shmem}};
  read_status_fields(text, fields);
  if (!fields[0].found || !fields[1].found) return false;
  out->shared_bytes = file + shmem;
  return true;
}

bool parse_status(const char* text, MemoryPeaks* peaks, MemoryNow* now) {
  uint64_t file = 0, shmem = 0;
  StatusField fields[] = {{"VmPeak", &peaks->vm_peak_bytes},
                          {"VmHWM", &peaks->rss_peak_bytes},
                          {"VmSize", &now->size_bytes},
                          {"VmRSS", &now->resident_bytes},
                          {"RssFile", &file},
                          {"RssShmem", &shmem},
                          {"Threads", &now->threads, 1}};
  read_status_fields(text, fields);
  peaks->valid = fields[0].found && fields[1].found;
  if (fields[2].found && fields[3].found) now->shared_bytes = file + shmem;
  return peaks->valid;
}

bool parse_stat(const char* text, CpuAndExit* out) {
  // "pid (comm) S ppid ..." where comm may hold spaces and parentheses: fields
  // are counted from the last ')'.
  const char* close = nullptr;
  for (const char* p = text; *p; ++p)
    if (*p == ')') close = p;
  if (!close || close[1] != ' ') return false;
  const char* open = text;
  while (*open && *open != '(') ++open;
  size_t n = 0;
  if (*open)
    for (const char* c = open + 1; c < close && n + 1 < sizeof out->comm; ++c) out->comm[n++] = *c;
  out->comm[n] = 0;
  const char* p = close + 2;
  out->state = *p;
  uint64_t values[53] = {0};
  int field = 3;  // p points at field 3 (state)
  while (*p && field <= 52) {
    while (*p && *p != ' ') ++p;
    if (!*p) break;
    ++p, ++field;
    uint64_t v = 0;
    bool negative = *p == '-';
    if (negative) ++p;
    const char* q = read_uint(p, &v);
    if (q) p = q;
    values[field] = negative ? uint64_t(-int64_t(v)) : v;
  }
  if (field < 15) return false;
  long ticks = sysconf(_SC_CLK_TCK);
  out->ppid = int(values[4]);
  out->user_ns = values[14] * (1000000000ull / uint64_t(ticks));
  out->sys_ns = values[15] * (1000000000ull / uint64_t(ticks));
  out->children_user_ns = values[16] * (1000000000ull / uint64_t(ticks));
  out->children_sys_ns = values[17] * (1000000000ull / uint64_t(ticks));
  out->exit_code = field >= 52 ? int(values[52]) : 0;
  out->start_ticks = values[22];
  out->exit_signal = int(values[38]);
  out->minor_faults = values[10];
  out->major_faults = values[12];
  out->valid = true;
  return true;
}

bool parse_io(const char* text, KernelCounters* out) {
  StatusField fields[] = {{"rchar", &out->rchar, 1},
                          {"wchar", &out->wchar, 1},
                          {"read_bytes", &out->read_bytes, 1},
                          {"write_bytes", &out->write_bytes, 1}};
  bool all = read_status_fields(text, fields);
  out->have_call_bytes = out->have_storage = all;
  return all;
}

namespace {
// /proc/<dir>/<name> (dir: "self", "thread-self" or a pid), opened read-only.
int open_proc_path(const char* dir, pid_t pid, const char* name) {
  char path[64];
  char* p = path;
  for (const char* s = "/proc/"; *s;) *p++ = *s++;
  if (dir) {
    while (*dir) *p++ = *dir++;
  } else {
    put_decimal(p, static_cast<unsigned long>(pid));
  }
  *p++ = '/';
  while (*name && p < path + sizeof(path) - 1) *p++ = *name++;
  *p = 0;
  int fd = raw_open(path, O_RDONLY | O_CLOEXEC);
  return fd_above_stdio(fd < 0 ? -1 : fd);
}
}  // namespace

int open_proc_file(pid_t pid, const char* name) {
  return open_proc_path(pid == 0 ? "self" : nullptr, pid, name);
}

int open_thread_self_file(const char* name) {
  return open_proc_path("thread-self", 0, name);
}

namespace {
// "/proc/<pid>/task/<tid>/<name>" (tid 0: "/proc/<pid>/task").
void task_path(char (&path)[96], pid_t pid, pid_t tid, const char* name) {
  char* p = path;
  for (const char* s = "/proc/"; *s;) *p++ = *s++;
  put_decimal(p, static_cast<unsigned long>(pid));
  for (const char* s = "/task"; *s;) *p++ = *s++;
  if (tid > 0) {
    *p++ = '/';
    put_decimal(p, static_cast<unsigned long>(tid));
    *p++ = '/';
    while (*name && p < path + sizeof(path) - 1) *p++ = *name++;
  }
  *p = 0;
}

struct DirEntry64 {  // getdents64's record (struct linux_dirent64)
  uint64_t ino;
  int64_t off;
  unsigned short reclen;
  unsigned char type;
  char name[1];
};
}  // namespace

int open_task_file(pid_t pid, pid_t tid, const char* name) {
  char path[96];
  task_path(path, pid, tid, name);
  int fd = raw_open(path, O_RDONLY | O_CLOEXEC);
  return fd_above_stdio(fd < 0 ? -1 : fd);
}

int open_live_thread_statm(pid_t pid, pid_t* tid) {
  char path[96];
  task_path(path, pid, 0, "");
  int dir = raw_open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  alignas(8) char buf[2048];
  int found = -1;
  long n;
  while (found < 0 && (n = raw_syscall(SYS_getdents64, dir, reinterpret_cast<long>(buf),
                                       long(sizeof buf))) > 0) {
    for (long at = 0; at < n && found < 0;) {
      const auto* e = reinterpret_cast<const DirEntry64*>(buf + at);
      at += e->reclen;
      unsigned long t = 0;
      const char* c = e->name;
      for (; *c >= '0' && *c <= '9'; ++c) t = t * 10 + unsigned(*c - '0');
      if (*c != 0 || c == e->name || pid_t(t) == pid) continue;  // ".", "..", the leader
      int fd = open_task_file(pid, pid_t(t), "statm");
      MemoryNow now;
      if (fd >= 0 && read_statm(fd, &now) && now.size_bytes != 0) {
        found = fd;
        *tid = pid_t(t);
      } else if (fd >= 0) {
        raw_close(fd);
      }
    }
  }
  raw_close(dir);
  return found;
}

int fd_above_stdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  int high = raw_dup_above(fd, 3);
  raw_close(fd);
  return high < 0 ? -1 : high;
}

bool read_statm(int fd, MemoryNow* out) {
  char buf[256];
  return pread_text(fd, buf, sizeof buf) > 0 && parse_statm(buf, out);
}

bool read_status_peaks(int fd, MemoryPeaks* out) {
  char buf[4096];
  return pread_text(fd, buf, sizeof buf) > 0 && parse_status_peaks(buf, out);
}

bool read_status(int fd, MemoryPeaks* peaks, MemoryNow* now) {
  char buf[4096];
  return pread_text(fd, buf, sizeof buf) > 0 && parse_status(buf, peaks, now);
}

bool read_stat(int fd, CpuAndExit* out) {
  char buf[1024];
  return pread_text(fd, buf, sizeof buf) > 0 && parse_stat(buf, out);
}

bool read_io(int fd, KernelCounters* out) {
  char buf[512];
  return pread_text(fd, buf, sizeof buf) > 0 && parse_io(buf, out);
}

bool parse_loadavg_last_pid(const char* text, uint64_t* out) {
  const char* last = nullptr;
  for (const char* p = text; *p; ++p)
    if (*p == ' ') last = p + 1;
  return last && read_uint(last, out) && *out > 0;
}

bool read_loadavg_last_pid(int fd, uint64_t* out) {
  char buf[128];
  return pread_text(fd, buf, sizeof buf) > 0 && parse_loadavg_last_pid(buf, out);
}

bool parse_uid_map_maps(const char* text, uint64_t uid) {
  const char* p = text;
  while (*p) {
    uint64_t range[3];  // inside, outside, count
    for (uint64_t& v : range) {
      while (*p == ' ') ++p;
      if (!(p = read_uint(p, &v))) return false;
    }
    if (uid >= range[0] && uid - range[0] < range[2]) return true;
    while (*p && *p++ != '\n') {
    }
  }
  return false;
}

bool read_uid_map_maps(int fd, uint64_t uid) {
  char buf[1024];  // a few lines; a longer map is read in part, its last line cut short
  return pread_text(fd, buf, sizeof buf) < 0 || parse_uid_map_maps(buf, uid);
}

}  // namespace account
