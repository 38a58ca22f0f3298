// Exact counts: what each interposed function adds to a process's record.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "shim_run.h"

namespace account::testing {
namespace {

// The one record of a single-process program run under the shim.
ProcessRecord only_record(const ShimRun& run) {
  EXPECT_TRUE(run.records.bad_lines.empty()) << run.records.bad_lines.front();
  EXPECT_EQ(run.records.processes.size(), 1u) << slurp(run.output);
  if (run.records.processes.empty()) return {};
  return run.records.processes.front();
}

TEST(ShimCounts, AllocPatternMallocBytesAndCalls) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("alloc_pattern")}, {{"ACCOUNT_SAMPLE_MS", "0"}});
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  EXPECT_EQ(run.result.err, "");
  ProcessRecord r = only_record(run);
  EXPECT_EQ(r.malloc_calls, 13u);
  EXPECT_EQ(r.malloc_bytes, 10u * 1000 + 1000 + 5000 + 1048576);
  EXPECT_EQ(r.free_calls, 12u);
  EXPECT_EQ(own_copied_calls(run, r), 0u);
  EXPECT_EQ(r.end, "exit");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.written_by, "process");
}

// Table for malloc_family.c (calls, bytes; a failed call asks for nothing):
//   malloc(100) 1/100, malloc(0) 1/0, calloc(10,20) 1/200, calloc overflow 1/0,
//   realloc(m,300) 1/300, realloc(NULL,50) 1/50, reallocarray(NULL,4,25) 1/100,
//   reallocarray overflow 1/0, posix_memalign 64/128 1/128, posix_memalign 3/128
//   (EINVAL) 1/0, posix_memalign 24/64 (EINVAL) 1/0, aligned_alloc(64,256)
//   1/256, aligned_alloc(24,48) 1/48, memalign(32,64) 1/64, valloc(1000) 1/1000,
//   pvalloc(1000) 1/1000, realloc(r,0) 1/0  => 17 calls, 3246 bytes.
//   free(NULL), free(zero) and 8 more frees => 10 free calls.
TEST(ShimCounts, EveryMallocFamilyFunctionIncludingFailures) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("malloc_family")}, {{"ACCOUNT_SAMPLE_MS", "0"}});
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  EXPECT_EQ(run.result.err, "");
  ProcessRecord r = only_record(run);
  EXPECT_EQ(r.malloc_calls, 17u);
  EXPECT_EQ(r.malloc_bytes, 3246u);
  EXPECT_EQ(r.free_calls, 10u);
  // The failure cases fail as glibc makes them fail.
  EXPECT_NE(run.result.out.find("calloc_overflow=NULL errno=12\n"), std::string::npos)
      << run.result.out;
  EXPECT_NE(run.result.out.find("reallocarray_overflow=NULL errno=12\n"), std::string::npos);
  EXPECT_NE(run.result.out.find("posix_memalign_64=0 aligned=1\n"), std::string::npos);
  EXPECT_NE(run.result.out.find("posix_memalign_3=22 out=NULL\n"), std::string::npos);
  EXPECT_NE(run.result.out.find("posix_memalign_24=22 out=NULL\n"), std::string::npos);
  EXPECT_NE(run.result.out.find("realloc_0=NULL\n"), std::string::npos);
}

// The shim must not change what any malloc-family call returns, failures
// included: glibc 2.36's aligned_alloc accepts any alignment (it is memalign).
// A test program run without and with the shim.
struct BothRuns {
  ProgramResult without;
  ShimRun with;
};
BothRuns run_without_and_with_shim(const TempDir& dir, const std::string& name) {
  ProgramOptions plain;
  plain.env = clean_env();
  return {run_program({test_program(name)}, plain),
          run_with_shim(dir, {test_program(name)}, {{"ACCOUNT_SAMPLE_MS", "0"}})};
}

TEST(ShimCounts, MallocFamilyResultsUnchangedByShim) {
  TempDir dir;
  auto [without, with] = run_without_and_with_shim(dir, "malloc_family");
  EXPECT_EQ(with.result.out, without.out);
  EXPECT_EQ(with.result.err, without.err);
  EXPECT_EQ(with.result.status, without.status);
}

// errno too: the shim leaves it as the allocator does. glibc's posix_memalign
// sets ENOMEM as it fails for want of memory; the shim used to put the
// caller's errno back.
TEST(ShimCounts, ErrnoAfterFailedAllocationsUnchangedByShim) {
  TempDir dir;
  auto [without, with] = run_without_and_with_shim(dir, "alloc_errno");
  EXPECT_EQ(with.result.out, without.out);
  EXPECT_EQ(with.result.status, without.status);
  EXPECT_NE(with.result.out.find("posix_memalign_huge=12 errno=12\n"), std::string::npos)
      << with.result.out;
  EXPECT_NE(with.result.out.find("free errno=77\n"), std::string::npos) << with.result.out;
  ProcessRecord r = only_record(with);
  EXPECT_EQ(r.malloc_calls, 11u);
  // Ten calls failed (six of them asked for nearly SIZE_MAX bytes, whose sum
  // wrapped around when failed calls counted their requests): malloc(10) is
  // the one request that made a block.
  EXPECT_EQ(r.malloc_bytes, 10u);
}

TEST(ShimCounts, CopiedBytesForEachCopyFunction) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("copy_calls")}, {{"ACCOUNT_SAMPLE_MS", "0"}});
  ProcessRecord r = only_record(run);
  // memcpy 1000, memmove 2000, mempcpy 3000, bcopy 4000, __memcpy_chk 5000,
  // __memmove_chk 6000, __mempcpy_chk 7000, wmemcpy 100 x 4, wmemmove 200 x 4.
  EXPECT_EQ(own_copied_calls(run, r), 9u);
  EXPECT_EQ(own_copied_bytes(run, r), 1000u + 2000 + 3000 + 4000 + 5000 + 6000 + 7000 + 400 + 800);
  // The shim's forwarding never passes through libc's patched slots (glibc's
  // wmemcpy and wmemmove jump through them: the shim calls past them).
  EXPECT_EQ(record_field(run, r.pid, "libc_copied_calls"), 0) << slurp(run.output);
  EXPECT_EQ(r.malloc_calls, 0u);
  EXPECT_EQ(r.free_calls, 0u);
  EXPECT_EQ(run.result.err, "");
  EXPECT_EQ(run.result.status, 0);  // 3: a _chk variant returned the wrong pointer
}

// The shim's _chk variants check as glibc's do: a destination too small stops
// the program the same way, with and without the shim.
TEST(ShimCounts, ChkVariantsStopABufferOverflowAsGlibcDoes) {
  for (const char* variant : {"memcpy", "memmove", "mempcpy"}) {
    SCOPED_TRACE(variant);
    TempDir dir;
    ProgramOptions plain;
    plain.env = clean_env();
    ProgramResult without = run_program({test_program("copy_calls"), variant}, plain);
    ShimRun with =
        run_with_shim(dir, {test_program("copy_calls"), variant}, {{"ACCOUNT_SAMPLE_MS", "0"}});
    ASSERT_TRUE(WIFSIGNALED(without.status)) << without.status;
    EXPECT_EQ(WTERMSIG(without.status), SIGABRT);
    EXPECT_NE(without.err.find("buffer overflow detected"), std::string::npos) << without.err;
    EXPECT_EQ(with.result.status, without.status);
    EXPECT_EQ(with.result.err, without.err);
  }
}

TEST(ShimCounts, ExactHeapPeakOfAllocateThenFree) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("heap_peak")}, {{"ACCOUNT_SAMPLE_MS", "0"}});
  ASSERT_EQ(run.result.status, 0);
  long long expected = value_after(run.result.out, "expected_heap_peak");
  ASSERT_GT(expected, 3 << 20) << run.result.out;
  ASSERT_EQ(value_after(run.result.out, "live_at_end"), 0);
  ProcessRecord r = only_record(run);
  EXPECT_EQ(r.heap_peak_bytes, uint64_t(expected));
  EXPECT_EQ(r.malloc_calls, 100u + 1 + 10 + 1 + 1);
  EXPECT_EQ(r.free_calls, 100u + 1 + 10 + 1);
}

// Many new peaks, and live heap moving by more than the 256 KiB publish step
// both ways, on one thread: the peak is still exact.
TEST(ShimCounts, ExactHeapPeakOfALongRandomWalk) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("heap_walk")}, {{"ACCOUNT_SAMPLE_MS", "0"}});
  ASSERT_EQ(run.result.status, 0);
  long long expected = value_after(run.result.out, "expected_heap_peak");
  ASSERT_GT(value_after(run.result.out, "peaks"), 100) << run.result.out;
  ASSERT_EQ(value_after(run.result.out, "live_at_end"), 0);
  EXPECT_EQ(only_record(run).heap_peak_bytes, uint64_t(expected));
}

// Threads publish their net change every 256 KiB, so with 4 threads (and the
// main thread) the peak may be off by at most 5 x 256 KiB plus the little glibc
// allocates for the threads themselves; thread 0's frees must have reached the
// shared total, or the figure would be 8 MiB too high.
TEST(ShimCounts, HeapPeakAcrossThreadsWithinThePublishStep) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("heap_threads")}, {{"ACCOUNT_SAMPLE_MS", "0"}});
  ASSERT_EQ(run.result.status, 0);
  long long expected = value_after(run.result.out, "expected_heap_peak");
  ASSERT_GT(expected, 36ll << 20) << run.result.out;
  long long got = static_cast<long long>(only_record(run).heap_peak_bytes);
  EXPECT_GT(got, expected - 5 * 256 * 1024);
  EXPECT_LT(got, expected + 5 * 256 * 1024 + 64 * 1024);
}

TEST(ShimCounts, ReallocThatMovesAddsReallocCopiedBytes) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("realloc_move")}, {{"ACCOUNT_SAMPLE_MS", "0"}});
  ASSERT_EQ(run.result.status, 0);
  ASSERT_EQ(value_after(run.result.out, "moved"), 1) << run.result.out;
  ASSERT_EQ(value_after(run.result.out, "shrink_moved"), 0) << run.result.out;
  long long expected = value_after(run.result.out, "expected_realloc_copied");
  ASSERT_GE(expected, 1000);
  ProcessRecord r = only_record(run);
  EXPECT_EQ(r.realloc_copied_bytes, uint64_t(expected));
  // malloc 1000, 1000, realloc 100000, malloc 5000, realloc 100.
  EXPECT_EQ(r.malloc_calls, 5u);
  EXPECT_EQ(r.malloc_bytes, 1000u + 1000 + 100000 + 5000 + 100);
  EXPECT_EQ(r.free_calls, 3u);
  // The moving realloc's copy is not a memcpy the program made.
  EXPECT_EQ(own_copied_bytes(run, r), 0u);
}

// 8 threads x 1M malloc+free. Thread creation and exit allocate on their own,
// so the 0-allocation run of the same program is the baseline; the difference
// must be exact.
TEST(ShimCounts, EightThreadsMillionAllocationsEachExactTotals) {
  TempDir base_dir, dir;
  ShimRun base = run_with_shim(base_dir, {test_program("thread_allocs"), "8", "0"},
                               {{"ACCOUNT_SAMPLE_MS", "0"}});
  ShimRun run = run_with_shim(dir, {test_program("thread_allocs"), "8", "1000000"},
                              {{"ACCOUNT_SAMPLE_MS", "0"}});
  ASSERT_EQ(base.result.status, 0);
  ASSERT_EQ(run.result.status, 0);
  ProcessRecord b = only_record(base), r = only_record(run);
  const uint64_t per_thread_bytes = 1000000ull * 16 + (1000000ull / 100) * 4950;
  EXPECT_EQ(r.malloc_calls - b.malloc_calls, 8u * 1000000);
  EXPECT_EQ(r.free_calls - b.free_calls, 8u * 1000000);
  EXPECT_EQ(r.malloc_bytes - b.malloc_bytes, 8 * per_thread_bytes);
  // Thread start-up itself is small and the same each run.
  EXPECT_LT(b.malloc_calls, 100u);
}

// The shim's start-up check of the chunk header allocates and frees on its own;
// it must not raise glibc's dynamic mmap threshold (freeing an mmapped block
// below 32 MiB does), or the program's later large blocks would come from the
// heap instead of mmap.
TEST(ShimCounts, GlibcMmapThresholdUntouched) {
  TempDir dir;
  ProgramResult plain = run_program({test_program("mmap_threshold")});
  ShimRun run = run_with_shim(dir, {test_program("mmap_threshold")}, {{"ACCOUNT_SAMPLE_MS", "0"}});
  EXPECT_EQ(plain.out, "200000-byte block mmapped=1\n");
  EXPECT_EQ(run.result.out, plain.out);
}

// The record's vm_peak_bytes is the kernel's VmPeak: whatever the shim maps
// and unmaps at start-up would show in every process's Size column. A program
// that unmaps nothing itself must end with its peak at most a little above its
// size (the sampler's first clone shares the memory; glibc's own start-up
// transients are a few pages).
TEST(ShimCounts, StartUpLeavesNoVirtualMemoryPeak) {
  TempDir dir;
  ProgramResult plain = run_program({test_program("vm_peak")});
  ShimRun run = run_with_shim(dir, {test_program("vm_peak")});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  long long plain_gap =
      value_after(plain.out, "vm_peak_kib") - value_after(plain.out, "vm_size_kib");
  long long gap =
      value_after(run.result.out, "vm_peak_kib") - value_after(run.result.out, "vm_size_kib");
  EXPECT_LE(gap, plain_gap + 256) << run.result.out << " bare: " << plain.out;
}

}  // namespace
}  // namespace account::testing
