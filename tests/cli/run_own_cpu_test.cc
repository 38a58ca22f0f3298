// account run's own CPU for a run, in the tree record's sampler_cpu_s: what
// the tree sampler and the run cost, apart from the command's CPU.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "records.h"
#include "run_program.h"

namespace account::testing {
namespace {

double command_cpu(const RecordFile& f) {
  double cpu = 0;
  for (const ProcessRecord& p : f.processes) cpu += p.cpu_user_s + p.cpu_sys_s;
  return cpu;
}

// A shell counting for a few hundred ms of CPU: the run's own CPU is there,
// and it is not the command's. account's tick reads one statm per live
// process every 5 ms (tens of microseconds on a slow machine), so a quarter
// of the command's CPU is a bound no honest figure comes near; one that took
// the children's CPU (RUSAGE_CHILDREN) would be the command's whole CPU.
TEST(RunOwnCpu, TreeRecordHoldsTheRunsCpuNotTheCommands) {
  TempDir dir;
  std::string path = dir.file("r.jsonl");
  ProgramResult r = run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", path, "--", "/bin/sh", "-c",
                                 "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"});
  ASSERT_EQ(r.status, 0) << r.err;
  RecordFile f = read_records(path);
  ASSERT_TRUE(f.bad_lines.empty());
  ASSERT_EQ(f.trees.size(), 1u);
  ASSERT_TRUE(f.trees[0].sampler_cpu_s.has_value());
  double own = *f.trees[0].sampler_cpu_s, cpu = command_cpu(f);
  EXPECT_GT(cpu, 0.05);
  EXPECT_GT(own, 0.0);
  EXPECT_LT(own, cpu / 4) << "command's CPU " << cpu;
}

// Daemons outlive the command: the lingering sampler writes the tree record,
// and its CPU is the run's too. A fork's own CPU starts from zero, so without
// it the record would hold only what account run spent before the fork, the
// same for a daemon of 50 ms as for one of 2 s; with it the longer watch costs
// clearly more. A 1-ms tick makes that some 1950 more ticks, so a fast machine,
// whose ticks cost little, still shows it.
double lingering_run_cpu(const std::string& daemon_seconds) {
  TempDir dir;
  std::string path = dir.file("r.jsonl");
  ProgramResult r =
      run_program({ACCOUNT_CLI_PATH, "run", "-q", "--interval", "1", "-o", path, "--", "/bin/sh",
                   "-c", "/bin/sleep " + daemon_seconds + " >/dev/null 2>&1 & exit 0"});
  EXPECT_EQ(r.status, 0) << r.err;
  RecordFile f;
  for (int i = 0; i < 500 && f.trees.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    f = read_records(path);
  }
  EXPECT_EQ(f.trees.size(), 1u);
  if (f.trees.size() != 1 || !f.trees[0].sampler_cpu_s) return -1;
  return *f.trees[0].sampler_cpu_s;
}

TEST(RunOwnCpu, LingeringSamplerAddsItsOwn) {
  double short_watch = lingering_run_cpu("0.05"), long_watch = lingering_run_cpu("2");
  EXPECT_GT(short_watch, 0.0);
  // Without the fork's own CPU both are account run's share alone, the same
  // within noise (measured at 5 ms: 0.9 and 1.6 ms, 1.4 and 1.7 ms); with it
  // the short one adds the fork's start and the long one its ticks (measured
  // at 1 ms: 5.9-7.7 ms against 48-51 ms).
  EXPECT_GT(long_watch, 1.5 * short_watch);
  EXPECT_LT(long_watch, 1.0);  // a sampler's CPU, not the daemon's life
}

}  // namespace
}  // namespace account::testing
