// The sampling engine (sampling.h) against a fake /proc: a ProcReader that
// serves scripted statm/stat/status text, parsed by the real parsers
// (proc_files.h). No real process, no sleeping, no timing.
#include "sampling.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "fake_proc.h"
#include "timeline.h"

namespace account {
namespace {

const uint64_t kPage = uint64_t(sysconf(_SC_PAGESIZE));
const uint64_t kTickNs = 1000000000ull / uint64_t(sysconf(_SC_CLK_TCK));

struct Engine {
  FakeProc proc;
  ProcessWatch w;
  SampledPeaks peaks{};
  MemoryNow now;

  Engine() {
    w.handle.pid = 4242;
    proc.statm_file = statm_text(1000, 400, 100);
    proc.stat_file = stat_text('S', 0, 0, 0);
    proc.status_file = status_text(4000, 4000, 1600, 1600);
  }
  bool tick() { return sample_tick(proc, &w, &peaks, &now); }
};

void expect_same_peaks(const SampledPeaks& a, const SampledPeaks& b) {
  EXPECT_EQ(a.size_bytes, b.size_bytes);
  EXPECT_EQ(a.rss_bytes, b.rss_bytes);
  EXPECT_EQ(a.anon_bytes, b.anon_bytes);
  EXPECT_EQ(a.samples, b.samples);
}

TEST(Sampling, PeaksOverTicks) {
  Engine e;
  // size, resident, shared in pages: each peak is reached at a different tick,
  // and the anon peak (resident - shared) is not at the resident peak.
  struct {
    uint64_t size, resident, shared;
  } script[] = {
      {1000, 400, 100},  // anon 300
      {3000, 500, 450},  // size peak; anon 50
      {2000, 900, 800},  // resident peak; anon 100
      {1500, 700, 100},  // anon peak 600
      {1200, 300, 290},  // anon 10
  };
  for (const auto& s : script) {
    e.proc.statm_file = statm_text(s.size, s.resident, s.shared);
    ASSERT_TRUE(e.tick());
    EXPECT_EQ(e.now.size_bytes, s.size * kPage);
    EXPECT_EQ(e.now.resident_bytes, s.resident * kPage);
    EXPECT_EQ(e.now.shared_bytes, s.shared * kPage);
  }
  EXPECT_EQ(e.peaks.size_bytes, 3000 * kPage);
  EXPECT_EQ(e.peaks.rss_bytes, 900 * kPage);
  EXPECT_EQ(e.peaks.anon_bytes, 600 * kPage);
  EXPECT_EQ(e.peaks.samples, 5u);
  EXPECT_EQ(e.w.ticks, 5u);
  EXPECT_EQ(e.proc.statm_calls, 5u);
}

TEST(Sampling, RaisePeaksNeverLowersAndClampsAnon) {
  SampledPeaks p{};
  MemoryNow m;
  m.size_bytes = 100, m.resident_bytes = 50, m.shared_bytes = 10;
  raise_peaks(&p, m);
  m.size_bytes = 90, m.resident_bytes = 20, m.shared_bytes = 30;  // shared > resident: anon 0
  raise_peaks(&p, m);
  EXPECT_EQ(p.size_bytes, 100u);
  EXPECT_EQ(p.rss_bytes, 50u);
  EXPECT_EQ(p.anon_bytes, 40u);
  EXPECT_EQ(p.samples, 2u);
}

TEST(Sampling, SpikeBetweenTicksOnlyTheKernelPeaksSee) {
  Engine e;
  e.proc.statm_file = statm_text(1000, 400, 100);
  e.proc.status_file = status_text(4000, 4000, 1600, 1600);
  ASSERT_TRUE(e.tick());  // tick 0: slow
  EXPECT_TRUE(e.w.kernel.valid);
  EXPECT_EQ(e.w.kernel.vm_peak_bytes, 4000u * 1024);
  EXPECT_EQ(e.w.kernel.rss_peak_bytes, 1600u * 1024);
  for (uint64_t tick = 1; tick < kSlowEvery; ++tick) {
    // Between ticks 5 and 6 the process mapped and touched 200 MiB and let it
    // go: no statm reading shows it, the kernel's VmPeak/VmHWM keep it.
    if (tick == 6) e.proc.status_file = status_text(208800, 4000, 206400, 1600);
    ASSERT_TRUE(e.tick());
    // status is read on slow ticks only: the spike is not known yet.
    EXPECT_EQ(e.w.kernel.vm_peak_bytes, 4000u * 1024) << tick;
    EXPECT_EQ(e.w.kernel.rss_peak_bytes, 1600u * 1024) << tick;
  }
  ASSERT_TRUE(e.tick());  // tick kSlowEvery: slow
  EXPECT_EQ(e.w.kernel.vm_peak_bytes, 208800u * 1024);
  EXPECT_EQ(e.w.kernel.rss_peak_bytes, 206400u * 1024);
  // The sampled peaks never saw it.
  EXPECT_EQ(e.peaks.size_bytes, 1000 * kPage);
  EXPECT_EQ(e.peaks.rss_bytes, 400 * kPage);
  EXPECT_EQ(e.peaks.anon_bytes, 300 * kPage);
  EXPECT_EQ(e.peaks.samples, kSlowEvery + 1);
}

TEST(Sampling, SlowReadsExactlyEveryKSlowEveryTicks) {
  Engine e;
  const uint64_t ticks = 3 * kSlowEvery + 5;
  for (uint64_t tick = 0; tick < ticks; ++tick) {
    // CPU grows by one clock tick per sampling tick: w.cpu shows which stat was read last.
    e.proc.stat_file = stat_text('S', tick, 2 * tick, 0);
    ASSERT_TRUE(e.tick());
  }
  std::vector<uint64_t> slow = {0, kSlowEvery, 2 * kSlowEvery, 3 * kSlowEvery};
  EXPECT_EQ(e.proc.stat_at, slow);
  EXPECT_EQ(e.proc.status_at, slow);
  EXPECT_EQ(e.proc.statm_calls, ticks);
  EXPECT_EQ(e.w.ticks, ticks);
  EXPECT_EQ(e.peaks.samples, ticks);
  EXPECT_TRUE(e.w.cpu.valid);
  EXPECT_EQ(e.w.cpu.state, 'S');
  EXPECT_EQ(e.w.cpu.user_ns, 3 * kSlowEvery * kTickNs);
  EXPECT_EQ(e.w.cpu.sys_ns, 2 * 3 * kSlowEvery * kTickNs);
}

// account run's tree meets most processes for one tick: their first slow
// read waits for the second.
TEST(Sampling, SlowReadsFromTheSecondTickForAProcessMetInPassing) {
  Engine e;
  e.w.first_slow = 1;
  const uint64_t ticks = 2 * kSlowEvery + 3;
  for (uint64_t tick = 0; tick < ticks; ++tick) ASSERT_TRUE(e.tick());
  std::vector<uint64_t> slow = {1, kSlowEvery + 1, 2 * kSlowEvery + 1};
  EXPECT_EQ(e.proc.stat_at, slow);
  EXPECT_EQ(e.proc.status_at, slow);
  EXPECT_EQ(e.proc.statm_calls, ticks);
  EXPECT_EQ(e.peaks.samples, ticks);
}

// status is read before stat: a stat that no longer reads (the process is
// gone, its pid perhaps another's) takes the status reading with it.
TEST(Sampling, StatusKeptOnlyWhenTheStatAfterItReads) {
  Engine e;
  e.proc.stat_file.reset();
  ASSERT_TRUE(e.tick());  // tick 0: slow, status readable, stat not
  EXPECT_EQ(e.proc.status_at, (std::vector<uint64_t>{0}));
  EXPECT_EQ(e.proc.stat_at, (std::vector<uint64_t>{0}));
  EXPECT_FALSE(e.w.kernel.valid);
  EXPECT_FALSE(e.w.cpu.valid);
  e.proc.stat_file = stat_text('S', 7, 3, 0);
  for (uint64_t tick = 1; tick <= kSlowEvery; ++tick) ASSERT_TRUE(e.tick());
  EXPECT_TRUE(e.w.kernel.valid);
  EXPECT_EQ(e.w.kernel.vm_peak_bytes, 4000u * 1024);
  EXPECT_EQ(e.w.cpu.user_ns, 7 * kTickNs);
}

TEST(Sampling, UnreadableSlowFilesKeepTheLastValues) {
  Engine e;
  e.proc.stat_file = stat_text('S', 7, 3, 0);
  ASSERT_TRUE(e.tick());  // tick 0: slow
  e.proc.stat_file.reset();
  e.proc.status_file = kZombieStatus;  // no Vm lines: not valid
  for (uint64_t tick = 1; tick <= kSlowEvery; ++tick) ASSERT_TRUE(e.tick());
  EXPECT_EQ(e.proc.stat_at, (std::vector<uint64_t>{0, kSlowEvery}));
  EXPECT_EQ(e.w.cpu.user_ns, 7 * kTickNs);
  EXPECT_EQ(e.w.cpu.sys_ns, 3 * kTickNs);
  EXPECT_TRUE(e.w.kernel.valid);
  EXPECT_EQ(e.w.kernel.vm_peak_bytes, 4000u * 1024);
}

TEST(Sampling, GoneProcessReturnsFalseAndChangesNoPeak) {
  Engine e;
  e.proc.statm_file = statm_text(2000, 800, 200);
  ASSERT_TRUE(e.tick());
  e.proc.statm_file = statm_text(1500, 600, 100);
  ASSERT_TRUE(e.tick());
  const SampledPeaks before = e.peaks;
  const MemoryPeaks kernel_before = e.w.kernel;

  // statm unreadable: the process is gone.
  e.proc.statm_file.reset();
  EXPECT_FALSE(e.tick());
  expect_same_peaks(e.peaks, before);

  // A zombie: statm reads all zeros. Let it fall on a slow tick too.
  e.proc.statm_file = kZombieStatm;
  e.proc.stat_file = stat_text('Z', 1, 1, 0);
  e.proc.status_file = kZombieStatus;
  while (e.w.ticks % kSlowEvery != 0) EXPECT_FALSE(e.tick());
  EXPECT_FALSE(e.tick());
  expect_same_peaks(e.peaks, before);
  EXPECT_EQ(e.peaks.samples, 2u);
  EXPECT_EQ(e.w.kernel.vm_peak_bytes, kernel_before.vm_peak_bytes);
  EXPECT_EQ(e.w.kernel.rss_peak_bytes, kernel_before.rss_peak_bytes);
  EXPECT_EQ(e.w.ticks, kSlowEvery + 1);
}

Ending classify(FakeProc& proc, ProcessWatch* w, Writer writer = Writer::kSampler) {
  return classify_death(proc, w, writer);
}

TEST(Sampling, DeathOfAZombieThatExited) {
  FakeProc proc;
  ProcessWatch w;
  proc.stat_file = stat_text('Z', 250, 50, 3 << 8);
  Ending e = classify(proc, &w);
  EXPECT_EQ(e.kind, EndKind::kExit);
  EXPECT_EQ(e.code, 3);
  EXPECT_TRUE(e.code_known);
  EXPECT_EQ(e.writer, Writer::kSampler);
  // The zombie's CPU becomes the last figures.
  EXPECT_TRUE(w.cpu.valid);
  EXPECT_EQ(w.cpu.state, 'Z');
  EXPECT_EQ(w.cpu.user_ns, 250 * kTickNs);
  EXPECT_EQ(w.cpu.sys_ns, 50 * kTickNs);

  proc.stat_file = stat_text('Z', 0, 0, 0);
  e = classify(proc, &w, Writer::kWatch);
  EXPECT_EQ(e.kind, EndKind::kExit);
  EXPECT_EQ(e.code, 0);
  EXPECT_EQ(e.writer, Writer::kWatch);
}

TEST(Sampling, DeathOfAZombieKilledBySigkill) {
  FakeProc proc;
  ProcessWatch w;
  proc.stat_file = stat_text('Z', 12, 4, 9);
  Ending e = classify(proc, &w);
  EXPECT_EQ(e.kind, EndKind::kKilled);
  EXPECT_EQ(e.code, 9);
  EXPECT_TRUE(e.code_known);
  EXPECT_EQ(w.cpu.user_ns, 12 * kTickNs);
  EXPECT_EQ(w.cpu.sys_ns, 4 * kTickNs);
}

TEST(Sampling, DeathOfAZombieKilledBySigsegv) {
  FakeProc proc;
  ProcessWatch w;
  proc.stat_file = stat_text('Z', 1, 2, 11);
  Ending e = classify(proc, &w);
  EXPECT_EQ(e.kind, EndKind::kSignal);
  EXPECT_EQ(e.code, 11);
  EXPECT_TRUE(e.code_known);
  // With a core dump (WCOREFLAG, 0x80) it is the same signal.
  proc.stat_file = stat_text('Z', 1, 2, 0x80 | 11);
  e = classify(proc, &w);
  EXPECT_EQ(e.kind, EndKind::kSignal);
  EXPECT_EQ(e.code, 11);
}

TEST(Sampling, DeathOfAProcessAlreadyReaped) {
  FakeProc proc;
  ProcessWatch w;
  w.cpu.user_ns = 5, w.cpu.sys_ns = 6, w.cpu.valid = true;  // the last slow read
  proc.stat_file.reset();                                   // stat unreadable: reaped
  Ending e = classify(proc, &w, Writer::kWatch);
  EXPECT_EQ(e.kind, EndKind::kKilled);
  EXPECT_FALSE(e.code_known);
  EXPECT_EQ(e.writer, Writer::kWatch);
  EXPECT_EQ(w.cpu.user_ns, 5u);
  EXPECT_EQ(w.cpu.sys_ns, 6u);

  // Readable but not a zombie (the pid already belongs to someone else, say):
  // the cause is unknown all the same and its CPU is not taken.
  proc.stat_file = stat_text('R', 999, 999, 0);
  e = classify(proc, &w);
  EXPECT_EQ(e.kind, EndKind::kKilled);
  EXPECT_FALSE(e.code_known);
  EXPECT_EQ(w.cpu.user_ns, 5u);
  EXPECT_EQ(w.cpu.sys_ns, 6u);
}

TEST(Sampling, ReadFinalTakesLiveFiguresOnly) {
  FakeProc proc;
  ProcessWatch w;
  proc.stat_file = stat_text('S', 40, 20, 0);
  proc.status_file = status_text(9000, 8000, 3000, 2000);
  read_final(proc, &w);
  EXPECT_EQ(w.cpu.user_ns, 40 * kTickNs);
  EXPECT_EQ(w.cpu.sys_ns, 20 * kTickNs);
  EXPECT_EQ(w.kernel.vm_peak_bytes, 9000u * 1024);
  EXPECT_EQ(w.kernel.rss_peak_bytes, 3000u * 1024);
  // Died meanwhile: a zombie's stat and status change nothing.
  proc.stat_file = stat_text('Z', 41, 21, 0);
  proc.status_file = kZombieStatus;
  read_final(proc, &w);
  EXPECT_EQ(w.cpu.user_ns, 40 * kTickNs);
  EXPECT_EQ(w.cpu.state, 'S');
  EXPECT_EQ(w.kernel.vm_peak_bytes, 9000u * 1024);
  EXPECT_EQ(w.kernel.rss_peak_bytes, 3000u * 1024);
}

// Timeline merging, point by point: capacity 4, nine samples.
TimelinePoint sample(uint64_t i, uint64_t size, uint64_t rss) {
  return TimelinePoint{10 * (i + 1), size, rss, 100 * (i + 1), 1000 * (i + 1)};
}

void expect_point(const TimelinePoint& p, uint64_t t_us, uint64_t size, uint64_t rss,
                  uint64_t malloc_bytes, uint64_t copied_bytes) {
  EXPECT_EQ(p.t_us, t_us);
  EXPECT_EQ(p.size_bytes, size);
  EXPECT_EQ(p.rss_bytes, rss);
  EXPECT_EQ(p.malloc_bytes, malloc_bytes);
  EXPECT_EQ(p.copied_bytes, copied_bytes);
}

TEST(Sampling, TimelineMergesKeepingMaximaAndDoublesStride) {
  // The size and rss maxima of a span come from different samples.
  const uint64_t sizes[] = {50, 10, 20, 70, 30, 35, 90, 5, 40};
  const uint64_t rsses[] = {1, 8, 6, 2, 4, 9, 3, 7, 5};
  TimelineState s;
  TimelinePoint points[4] = {};
  timeline_init(&s, 4);
  for (uint64_t i = 0; i < 4; ++i) timeline_add(&s, points, sample(i, sizes[i], rsses[i]));
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.stride, 1u);
  for (uint64_t i = 0; i < 4; ++i)
    expect_point(points[i], 10 * (i + 1), sizes[i], rsses[i], 100 * (i + 1), 1000 * (i + 1));

  // The fifth sample finds the storage full: pairs merge, the stride doubles,
  // and the sample itself becomes the third point.
  timeline_add(&s, points, sample(4, sizes[4], rsses[4]));
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.stride, 2u);
  expect_point(points[0], 20, 50, 8, 200, 2000);  // samples 0-1: size of 0, rss of 1
  expect_point(points[1], 40, 70, 6, 400, 4000);  // samples 2-3: size of 3, rss of 2
  expect_point(points[2], 50, 30, 4, 500, 5000);  // sample 4

  // Samples 5 and 6 make one point (stride 2).
  timeline_add(&s, points, sample(5, sizes[5], rsses[5]));
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.pending, 1u);
  timeline_add(&s, points, sample(6, sizes[6], rsses[6]));
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.pending, 0u);
  expect_point(points[3], 70, 90, 9, 700, 7000);  // size of 6, rss of 5

  // Samples 7 and 8 complete a point with the storage full: merge again.
  timeline_add(&s, points, sample(7, sizes[7], rsses[7]));
  timeline_add(&s, points, sample(8, sizes[8], rsses[8]));
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.stride, 4u);
  EXPECT_EQ(s.pending, 0u);
  expect_point(points[0], 40, 70, 8, 400, 4000);  // samples 0-3
  expect_point(points[1], 70, 90, 9, 700, 7000);  // samples 4-6
  expect_point(points[2], 90, 40, 7, 900, 9000);  // samples 7-8: size of 8, rss of 7
}

TEST(Sampling, TickerIsDueAtOnce) {
  // An interval of an hour: nothing here depends on how fast the test runs.
  Ticker ticker(3600 * 1000);
  EXPECT_EQ(ticker.timeout_ms(), 0);
  EXPECT_TRUE(ticker.due());
  EXPECT_FALSE(ticker.due());
  int wait = ticker.timeout_ms();
  EXPECT_GT(wait, 0);
  EXPECT_LE(wait, 3600 * 1000);
}

TEST(Sampling, TickerNotAtOnceWaitsOneInterval) {
  Ticker ticker(3600 * 1000, /*at_once=*/false);
  EXPECT_FALSE(ticker.due());
  EXPECT_GT(ticker.timeout_ms(), 0);
  EXPECT_LE(ticker.timeout_ms(), 3600 * 1000);
}

long timer_slack_ns() {
  return prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
}

TEST(Sampling, TickerWaitLetsATickComeOneIntervalLateAtMostFiveMs) {
  long before = timer_slack_ns();
  ASSERT_GT(before, 0);
  {
    Ticker ticker(3600 * 1000);
    EXPECT_EQ(ticker.lateness_ns(), 5'000'000u);  // kTickLatenessMaxMs
    EXPECT_EQ(timer_slack_ns(), before);          // nothing set before the first wait
    EXPECT_EQ(ticker.wait(nullptr, 0), 0);        // the first tick is due at once
    EXPECT_EQ(timer_slack_ns(), 5'000'000);
  }
  EXPECT_EQ(timer_slack_ns(), before);  // given back: a command spawned now inherits it
  {
    Ticker ticker(2);
    EXPECT_EQ(ticker.lateness_ns(), 2'000'000u);  // never more than one interval
    ticker.wait(nullptr, 0);
    EXPECT_EQ(timer_slack_ns(), 2'000'000);
  }
  EXPECT_EQ(timer_slack_ns(), before);
}

TEST(Sampling, TickerWaitReturnsAReadyDescriptorBeforeTheTick) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "x", 1), 1);
  Ticker ticker(3600 * 1000, /*at_once=*/false);
  pollfd p{fds[0], POLLIN, 0};
  EXPECT_EQ(ticker.wait(&p, 1), 1);
  EXPECT_TRUE(p.revents & POLLIN);
  EXPECT_FALSE(ticker.due());
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace account
