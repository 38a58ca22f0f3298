#include "sampling.h"

#include <sys/prctl.h>
#include <time.h>

namespace account {

namespace {
void raise(uint64_t* field, uint64_t v) {
  if (v > __atomic_load_n(field, __ATOMIC_RELAXED)) __atomic_store_n(field, v, __ATOMIC_RELAXED);
}
}  // namespace

void raise_peaks(SampledPeaks* peaks, const MemoryNow& now) {
  raise(&peaks->size_bytes, now.size_bytes);
  raise(&peaks->rss_bytes, now.resident_bytes);
  raise(&peaks->anon_bytes, now.anon_bytes());
  __atomic_store_n(&peaks->samples, __atomic_load_n(&peaks->samples, __ATOMIC_RELAXED) + 1,
                   __ATOMIC_RELAXED);
}

bool sample_tick(ProcReader& proc, ProcessWatch* w, SampledPeaks* peaks, MemoryNow* now) {
  bool slow = w->ticks % kSlowEvery == w->first_slow % kSlowEvery;
  ++w->ticks;
  if (!proc.statm(&w->handle, now) || now->size_bytes == 0) return false;
  raise_peaks(peaks, *now);
  if (slow) {
    // status first: read through the stat opened with statm, the process is
    // known to have outlived the opening of a status opened just now by pid.
    MemoryPeaks kernel;
    bool have_kernel = proc.status(&w->handle, &kernel);
    CpuAndExit cpu;
    if (proc.stat(&w->handle, &cpu)) {
      w->cpu = cpu;
      if (have_kernel) w->kernel = kernel;
    }
  }
  return true;
}

void read_final(ProcReader& proc, ProcessWatch* w) {
  CpuAndExit cpu;
  if (proc.stat(&w->handle, &cpu) && cpu.state != 'Z') w->cpu = cpu;
  MemoryPeaks kernel;
  if (proc.status(&w->handle, &kernel)) w->kernel = kernel;
}

Ending classify_death(ProcReader& proc, ProcessWatch* w, Writer writer) {
  CpuAndExit last;
  bool zombie = proc.stat(&w->handle, &last) && last.state == 'Z';
  if (zombie) {
    w->cpu = last;
    return ending_from_wait_status(true, last.exit_code, writer);
  }
  // Reaped before we looked: the pidfd may still know how it ended.
  int status = 0;
  bool known = proc.exit_status(&w->handle, &status);
  return ending_from_wait_status(known, status, writer);
}

uint64_t process_cpu_now_ns() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

Ticker::Ticker(uint32_t interval_ms, bool at_once)
    : interval_ns_(uint64_t(interval_ms ? interval_ms : 1) * 1000000ull),
      next_ns_(monotonic_ns() + (at_once ? 0 : interval_ns_)),
      lateness_ns_(interval_ns_ < kTickLatenessMaxMs * 1000000ull
                       ? interval_ns_
                       : kTickLatenessMaxMs * 1000000ull) {}

Ticker::~Ticker() {
  if (slack_set_) prctl(PR_SET_TIMERSLACK, 0ul, 0ul, 0ul, 0ul);  // 0: the thread's default
}

int Ticker::wait(pollfd* fds, nfds_t nfds) {
  if (!slack_set_) slack_set_ = prctl(PR_SET_TIMERSLACK, lateness_ns_, 0ul, 0ul, 0ul) == 0;
  return poll(fds, nfds, timeout_ms());
}

int Ticker::timeout_ms() const {
  uint64_t now = monotonic_ns();
  if (now >= next_ns_) return 0;
  return int((next_ns_ - now + 999999) / 1000000);
}

bool Ticker::due() {
  uint64_t now = monotonic_ns();
  if (now < next_ns_) return false;
  // From when this tick came, not when it was due: a tick that came late
  // leaves the next a whole interval, not the rest of one.
  next_ns_ = now + interval_ns_;
  return true;
}

}  // namespace account
