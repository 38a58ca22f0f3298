// The kernel's counters in a process's own record (docs/counters.md), from
// real programs whose faults, switches and storage writes are known: each is
// at least what the program did (the loader, libc and the shim add their own).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "shim_run.h"

namespace account::testing {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

ProcessRecord only_record(const ShimRun& run) {
  EXPECT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.records.processes.size(), 1u) << dump(run);
  return run.records.processes.empty() ? ProcessRecord{} : run.records.processes[0];
}

TEST(KernelCounters, EveryFreshPageTouchedIsAMinorFault) {
  TempDir dir;
  ProcessRecord small = only_record(run_with_shim(dir, {test_program("kernel_counters"), "pages", "1"}));
  TempDir dir2;
  ProcessRecord big =
      only_record(run_with_shim(dir2, {test_program("kernel_counters"), "pages", "5000"}));
  ASSERT_TRUE(small.minor_faults && big.minor_faults);
  // 4999 more pages touched: at least that many more faults (fault-around maps
  // file pages, never fresh anonymous ones).
  EXPECT_GE(*big.minor_faults, *small.minor_faults + 4999);
  EXPECT_GE(*big.minor_faults, 5000u);
  EXPECT_EQ(big.major_faults, 0u);
}

TEST(KernelCounters, EachSleepIsAVoluntarySwitch) {
  TempDir dir;
  ProcessRecord r = only_record(run_with_shim(dir, {test_program("kernel_counters"), "sleeps", "100"}));
  ASSERT_TRUE(r.voluntary_ctxsw && r.involuntary_ctxsw);
  EXPECT_GE(*r.voluntary_ctxsw, 100u);
}

std::string disk_file(const std::string& name) {
  return std::string(ACCOUNT_TEST_DISK_DIR) + "/" + name + "-" + std::to_string(getpid());
}

TEST(KernelCounters, FsyncedWritesReachWriteBytes) {
  TempDir dir;
  std::string path = disk_file("kernel-counters-write");
  ProcessRecord r =
      only_record(run_with_shim(dir, {test_program("kernel_counters"), "write", path, "8"}));
  std::remove(path.c_str());
  ASSERT_TRUE(r.write_bytes && r.wchar && r.rchar && r.read_bytes);
  EXPECT_GE(*r.write_bytes, 8 * kMiB);
  EXPECT_GE(*r.wchar, 8 * kMiB);
  // Its record goes to the record file after the counters are read.
  EXPECT_LT(*r.wchar, 8 * kMiB + 64 * 1024);
}

// /proc/PID/io adds the I/O of every child a process reaped to its own: the
// parent's record has its own bytes, not its child's 8 MiB again.
TEST(KernelCounters, AParentDoesNotCountTheIoOfTheChildItReaped) {
  TempDir dir;
  std::string path = disk_file("kernel-counters-child");
  ShimRun run = run_with_shim(dir, {test_program("kernel_counters"), "child", path, "8"});
  std::remove(path.c_str());
  ASSERT_EQ(run.result.status, 0) << dump(run);
  ASSERT_EQ(run.records.processes.size(), 2u) << dump(run);
  const ProcessRecord& child = run.records.processes[0];  // it ends, and writes, first
  const ProcessRecord& parent = run.records.processes[1];
  ASSERT_EQ(child.ppid, parent.pid) << dump(run);
  ASSERT_TRUE(child.write_bytes && child.wchar) << dump(run);
  EXPECT_GE(*child.write_bytes, 8 * kMiB);
  EXPECT_GE(*child.wchar, 8 * kMiB);
  ASSERT_TRUE(parent.write_bytes && parent.wchar) << dump(run);
  EXPECT_LT(*parent.write_bytes, 1 * kMiB);
  EXPECT_LT(*parent.wchar, 1 * kMiB);
}

}  // namespace
}  // namespace account::testing
