/// The sampling engine: one tick of one process, the tick schedule, and how a
/// process that died without writing its record ended. Used by every sampler:
/// account run's tree sampler, account watch and the shim's per-image sampler
/// (so it is allocation-free and async-signal-safe, like proc_reader.h).
#pragma once

#include <poll.h>
#include <stdint.h>

#include "clock.h"
#include "ending.h"
#include "proc_reader.h"

namespace account {

/// Ticks between the slow reads (stat for CPU, status for the kernel's peaks);
/// every tick reads statm.
constexpr uint64_t kSlowEvery = 20;

/// The sampled peaks of one process image. For an image the shim counts, they
/// live in its shared Region: the sampler raises them, the image reads them when
/// it writes its own record (hence the relaxed atomics).
struct SampledPeaks {
  uint64_t size_bytes;
  uint64_t rss_bytes;
  uint64_t anon_bytes;  // resident minus statm's shared
  uint64_t samples;
};

/// What a sampler knows of one process between ticks.
struct ProcessWatch {
  ProcHandle handle;
  uint64_t ticks = 0;
  /// The tick of the first slow read (then every kSlowEvery): 0, or 1 for a
  /// process met in passing (account run's tree), most of which live one tick.
  uint64_t first_slow = 0;
  CpuAndExit cpu;      // the last stat read
  MemoryPeaks kernel;  // the last status read (VmPeak, VmHWM)
};

/// Folds one statm reading into the peaks.
void raise_peaks(SampledPeaks* peaks, const MemoryNow& now);

/// One tick: statm every tick, stat and status on tick w->first_slow and every
/// kSlowEvery after. Returns false (and changes no peak) when the process is
/// gone or a zombie (whose statm reads all zeros).
bool sample_tick(ProcReader& proc, ProcessWatch* w, SampledPeaks* peaks, MemoryNow* now);

/// Final slow reads of a process that is still alive (CPU and kernel peaks as
/// late as possible); keeps the older values if it is gone.
void read_final(ProcReader& proc, ProcessWatch* w);

/// A process ended and wrote no record: how it ended, from its zombie's stat
/// (which also gives the last CPU figures), or once reaped from its pidfd
/// where the kernel keeps that; otherwise kKilled, cause unknown.
Ending classify_death(ProcReader& proc, ProcessWatch* w, Writer writer);

/// The tick schedule: a tick is due one interval after the last one came (on
/// CLOCK_MONOTONIC, taken before the tick's work, so the work does not stretch
/// it; after a stall there is no burst of ticks). Waiting through wait(), a
/// tick may come up to kTickLatenessMaxMs (at most one interval) after it is
/// due: the thread's timer slack lets the kernel fire it with a wake-up it
/// makes anyway (its own tick on a busy CPU), where a wake-up of its own costs
/// the sampler 50-100 us of CPU on a virtual machine. So the default 5-ms
/// interval samples every 5-10 ms, as the design allows.
class Ticker {
 public:
  /// The first tick is due at once, or (at_once false) after one interval.
  explicit Ticker(uint32_t interval_ms, bool at_once = true);
  /// Gives the thread its own timer slack back (a process spawned after a
  /// Ticker is gone inherits the slack it had).
  ~Ticker();
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;

  /// poll() on fds until one is ready or the next tick (0: no fd was ready).
  /// The first call sets this thread's timer slack to the lateness.
  int wait(pollfd* fds, nfds_t nfds);
  /// Milliseconds until the next tick (0: due now), for poll()'s timeout.
  int timeout_ms() const;
  /// True when a tick is due; schedules the next one.
  bool due();
  /// How late wait() lets a tick come.
  uint64_t lateness_ns() const { return lateness_ns_; }

 private:
  uint64_t interval_ns_;
  uint64_t next_ns_;
  uint64_t lateness_ns_;
  bool slack_set_ = false;
};

/// The loop of every sampler: the shim's per-image sampler, account run's tree
/// (its run, its wind-down after a signal, its lingering sampler) and account
/// watch of a process or a tree. While `go_on()`, it waits on `fds` until one
/// is ready or the next tick is due, then calls `turn(ready, due)`: `ready`
/// is poll's answer, `due` says a tick is due (the next is then scheduled).
/// A turn that returns false ends the loop.
template <typename GoOn, typename Turn>
void sampling_loop(Ticker& ticker, pollfd* fds, nfds_t nfds, GoOn go_on, Turn turn) {
  while (go_on()) {
    int ready = ticker.wait(fds, nfds);
    if (!turn(ready, ticker.due())) return;
  }
}

/// For a loop that ends only from its turn.
inline bool always() {
  return true;
}

/// The sampling interval when none is given (ACCOUNT_SAMPLE_MS, --interval):
/// the design's 5-10 ms tick, with a tick up to this late.
constexpr uint32_t kDefaultIntervalMs = 5;
constexpr uint32_t kTickLatenessMaxMs = 5;

/// The CPU this process has used, all its threads (CLOCK_PROCESS_CPUTIME_ID).
uint64_t process_cpu_now_ns();

}  // namespace account
