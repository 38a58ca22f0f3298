// Capturing the stack of a large allocation: the slow path behind the single
// compare in the malloc interposers.
//
// Re-entry: the unwinder may allocate (libunwind's first use in a thread, a
// dynamic TLS block). Those allocations are counted like any other but never
// captured: tls_capturing (initial-exec TLS, no allocation to reach it) is set
// for the whole capture.
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backtrace.h"
#include "backtrace_store.h"
#include "backtrace_unwind.h"
#include "counters.h"
#include "largest_capture.h"
#include "next_allocator.h"
#include "output_owner.h"
#include "proc_files.h"
#include "raw_syscall.h"
#include "record_writer.h"
#include "settings.h"
#include "text_buffer.h"
#include "usable_size.h"

namespace account {

uint64_t g_backtrace_min = UINT64_MAX;
__thread int tls_capturing __attribute__((tls_model("initial-exec"))) = 0;

namespace {

// ACCOUNT_BACKTRACE_SAMPLE: the mean number of bytes between two captures,
// and each thread's bytes left before its next one (0: not drawn yet) and
// random state (0: not seeded).
uint64_t g_sample_bytes = 0;
__thread int64_t tls_sample_left __attribute__((tls_model("initial-exec"))) = 0;
__thread uint64_t tls_sample_random __attribute__((tls_model("initial-exec"))) = 0;

// The next interval, uniform in [N/2, 3N/2): mean N, and never the same
// phase twice, so an allocation pattern with a period cannot alias with it
// (xorshift64*, seeded per thread from the clock and its TLS address).
int64_t next_sample_interval() {
  uint64_t& x = tls_sample_random;
  if (x == 0) x = (realtime_ns() ^ reinterpret_cast<uint64_t>(&x)) | 1;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  uint64_t r = (x * 0x2545f4914f6cdd1dull) >> 11;  // 53 random bits
  uint64_t half = g_sample_bytes / 2;
  return int64_t(half + (r % (g_sample_bytes ? g_sample_bytes : 1)) + 1);
}

// Whether this allocation is the one that crosses the thread's countdown,
// and what it then stands for: a request under the mean interval N stands
// for N bytes in about N / requested allocations like it, a larger one for
// itself (it is nearly always sampled).
bool sample_due(uint64_t requested, CaptureWeight* w) {
  if (tls_sample_left == 0) tls_sample_left = next_sample_interval();
  tls_sample_left -= int64_t(requested);
  if (tls_sample_left > 0) return false;
  tls_sample_left += next_sample_interval();
  if (tls_sample_left <= 0) tls_sample_left = next_sample_interval();
  if (requested < g_sample_bytes) {
    w->bytes = g_sample_bytes;
    w->count = (g_sample_bytes + requested / 2) / (requested ? requested : 1);
  }
  return true;
}

}  // namespace

namespace {

// Frames of the shim and the unwinder above the program's own (unw_backtrace,
// unwinder_capture, capture_large_allocation, the interposer, realloc under
// reallocarray): unwound as well, then skipped.
constexpr uint32_t kSkipBudget = 8;

// As the records' output, the log follows no link, never blocks on a FIFO and
// goes into no file of another user's.
int open_log(const char* path) {
  int fd = open_output(path, false);
  struct stat st;
  if (fd >= 0 && (raw_fstat(fd, &st) != 0 || owned_by_another_user(fd, st))) {
    raw_close(fd);
    return -1;
  }
  return fd;
}

// One JSON line, one write: {"pid":..,"tid":..,"time_ns":..,"size":..,"frames":[..]}.
void log_allocation(const uintptr_t* ips, uint32_t n, uint64_t requested) {
  char path[kPathCapacity];
  TextBuffer name(path, sizeof path - 1);
  for (const char* p = g_settings.backtrace_log; *p; ++p) {
    if (p[0] == '%' && p[1] == 'p')
      name.put_int(g_identity.pid), ++p;
    else if (p[0] == '%' && p[1] == '%')
      name.put('%'), ++p;
    else
      name.put(*p);
  }
  path[name.size()] = 0;

  size_t capacity = 160 + size_t(n) * 21;
  char* storage = static_cast<char*>(__builtin_alloca(capacity));
  TextBuffer line(storage, capacity);
  line.begin_object();
  line.field_int("pid", g_identity.pid);
  line.field_int("tid", syscall(SYS_gettid));
  line.field("time_ns", realtime_ns());
  line.field("size", requested);
  line.key("frames");
  line.put('[');
  for (uint32_t i = 0; i < n; ++i) {
    if (i) line.put(',');
    put_hex_string(line, ips[i]);
  }
  line.put(']');
  line.end_object();
  line.put('\n');
  if (line.overflowed()) return;

  int fd = open_log(path);
  if (fd < 0) return;
  ssize_t written;
  do written = write(fd, line.data(), line.size());
  while (written < 0 && errno == EINTR);
  close(fd);
}

// ACCOUNT_BACKTRACE_LEAKS: an empty live-block table beside the fresh store.
void start_leaks() {
  if (!g_settings.backtrace_leaks) return;
  if (start_live_blocks())
    store_relaxed(&g_backtrace_store->leaks, 1u);
  else
    warn("ACCOUNT_BACKTRACE_LEAKS is set but its table cannot be mapped; leaks are not followed");
}

}  // namespace

void capture_large_allocation(uint64_t requested, void* block) {
  BacktraceStore* store = __atomic_load_n(&g_backtrace_store, __ATOMIC_ACQUIRE);
  if (tls_capturing || store == nullptr) return;
  CaptureWeight weight{1, requested, requested};
  if (g_sample_bytes && !sample_due(requested, &weight)) return;
  tls_capturing = 1;
  int saved_errno = errno;

  uint32_t want = store->depth + kSkipBudget;
  uintptr_t* ips = static_cast<uintptr_t*>(__builtin_alloca(want * sizeof(uintptr_t)));
  int got = unwinder_capture(ips, int(want));
  uint32_t n = got > 0 ? uint32_t(got) : 0;
  uint32_t skip = 0;
  while (skip < n && unwinder_own_frame(ips[skip])) ++skip;
  uint32_t kept = n - skip;
  if (kept > store->depth) kept = store->depth;
  int32_t group = backtrace_store_add(store, ips + skip, kept, weight);
  note_capture(store, requested, group);
  if (g_live_blocks_on && block) {
    if (live_block_add(block, requested, group))
      backtrace_group_live(store, group, requested, +1);
    else
      fetch_add_relaxed(&store->untracked_blocks, uint64_t{1});
  }
  if (g_settings.backtrace_log[0]) log_allocation(ips + skip, kept, requested);

  errno = saved_errno;
  tls_capturing = 0;
}

TakenBlock take_captured_block(void* block) {
  TakenBlock t;
  t.taken = live_block_take(block, &t.requested, &t.group);
  return t;
}

void forget_captured_block(const TakenBlock& taken, void* block) {
  BacktraceStore* store = __atomic_load_n(&g_backtrace_store, __ATOMIC_ACQUIRE);
  if (!store) return;
  backtrace_group_live(store, taken.group, taken.requested, -1);
  if (block == tls_counting.last_block)
    backtrace_group_temporary(store, taken.group, taken.requested);
}

void settle_realloc(const TakenBlock& taken, void* ptr, void* result, uint64_t size) {
  if (!taken.taken) return;
  if (!result && size != 0) {  // failed: ptr is still live, as it was
    live_block_add(ptr, taken.requested, taken.group);
    return;
  }
  // Resized in place, moved or freed: that allocation ended (a temporary only
  // if the block itself went); the new one is captured as any other.
  BacktraceStore* store = __atomic_load_n(&g_backtrace_store, __ATOMIC_ACQUIRE);
  if (!store) return;
  backtrace_group_live(store, taken.group, taken.requested, -1);
  if (realloc_freed_block(ptr, result, size) && ptr == tls_counting.last_block)
    backtrace_group_temporary(store, taken.group, taken.requested);
}

void update_heap_detour() {
  set_heap_detour(!g_usable_from_header || g_backtrace_min != UINT64_MAX || !g_next.is_glibc ||
                  bootstrap_arena_used());
}

void start_backtraces() {
  if (g_settings.backtrace_min == 0) return;
  const char* why = "";
  if (!unwinder_load(&why)) {
    warn("ACCOUNT_BACKTRACE_MIN is set but ", why, "; backtraces stay off");
    return;
  }
  if (!create_backtrace_store(g_settings.backtrace_depth, g_settings.backtrace_min,
                              g_settings.backtrace_sample))
    return;
  g_sample_bytes = g_settings.backtrace_sample;
  start_leaks();
  g_backtrace_min = g_settings.backtrace_min;
  update_heap_detour();
}

void restart_backtraces_after_fork() {
  if (g_backtrace_min == UINT64_MAX) return;
  if (!create_backtrace_store(g_settings.backtrace_depth, g_settings.backtrace_min,
                              g_settings.backtrace_sample))
    g_backtrace_min = UINT64_MAX;
  else
    start_leaks();
  update_heap_detour();
}

void stop_backtraces_in_this_process() {
  g_backtrace_min = UINT64_MAX;
  stop_live_blocks();
  update_heap_detour();
}

}  // namespace account

// libunwind opens a pipe on first use (to validate addresses in its fallback
// unwinder) and keeps it: two descriptors the program would see, possibly 0-2.
// While the shim captures, pipe2 fails instead; libunwind then treats the memory
// it wanted to check as unreadable and stops that stack there. Everyone else
// gets the real system call.
extern "C" __attribute__((visibility("default"))) int pipe2(int fds[2], int flags) {
  if (account::tls_capturing) {
    errno = EMFILE;
    return -1;
  }
  return int(syscall(SYS_pipe2, fds, flags));
}
