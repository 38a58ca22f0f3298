// The heap at a process's end and its temporary allocations (docs/leaks.md),
// from a program whose blocks are known: exact counts, over the baseline of a
// run of the same program that allocates nothing.
#include <gtest/gtest.h>

#include <string>

#include "shim_run.h"

namespace account::testing {
namespace {

ShimRun run_leaks(const TempDir& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {test_program("leaks")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_with_shim(dir, argv);
}

ProcessRecord only_record(const ShimRun& run) {
  EXPECT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.records.processes.size(), 1u) << dump(run);
  return run.records.processes.empty() ? ProcessRecord{} : run.records.processes[0];
}

TEST(HeapAtExit, NothingAllocatedNothingLive) {
  TempDir dir;
  ProcessRecord r = only_record(run_leaks(dir, {"none"}));
  EXPECT_EQ(r.heap_at_exit_bytes, 0u);
  EXPECT_EQ(r.heap_at_exit_blocks, 0u);
  EXPECT_EQ(r.temporary_allocs, 0u);
  EXPECT_EQ(r.temporary_bytes, 0u);
}

TEST(HeapAtExit, ThreeBlocksKeptAreThreeBlocksOfTheirUsableBytes) {
  TempDir dir;
  ShimRun run = run_leaks(dir, {"three"});
  ProcessRecord r = only_record(run);
  // malloc_usable_size of the 1000, 2000 and 3000 byte blocks, as the program saw it.
  long long usable = value_after(run.result.out, "usable");
  ASSERT_GE(usable, 6000) << dump(run);
  EXPECT_LT(usable, 6000 + 3 * 16) << "glibc rounds a block up by less than 16 bytes";
  EXPECT_EQ(r.heap_at_exit_blocks, 3u) << dump(run);
  EXPECT_EQ(r.heap_at_exit_bytes, uint64_t(usable)) << dump(run);
  EXPECT_EQ(r.malloc_calls, 5u);
  EXPECT_EQ(r.free_calls, 2u);
}

TEST(HeapAtExit, EveryMallocFamilyCallCountsItsBlocks) {
  // malloc, calloc, realloc(NULL) make one each; a realloc of a block makes
  // none; realloc(p, 0) frees one; free(NULL) and a failed malloc change nothing.
  TempDir dir;
  ShimRun run = run_leaks(dir, {"calls"});
  ProcessRecord r = only_record(run);
  EXPECT_EQ(r.heap_at_exit_blocks, 1u) << dump(run);
  EXPECT_EQ(r.heap_at_exit_bytes, uint64_t(value_after(run.result.out, "usable"))) << dump(run);
  // realloc(NULL, 20) was the newest block when realloc moved it: a temporary.
  EXPECT_EQ(r.temporary_allocs, 1u);
  EXPECT_EQ(r.temporary_bytes, 20u);
}

TEST(HeapAtExit, AForkChildHoldsWhatItInherited) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("leaks"), "fork"}, {}, 2);
  ASSERT_EQ(run.result.status, 0) << dump(run);
  ASSERT_EQ(run.records.processes.size(), 2u) << dump(run);
  for (const ProcessRecord& r : run.records.processes) {
    bool child = r.ppid != int64_t(getpid());
    SCOPED_TRACE(child ? "child" : "parent");
    // Usable sizes: 300 -> 312, 400 -> 408, 500 -> 504 on glibc's 16-byte chunks.
    EXPECT_EQ(r.heap_at_exit_blocks, child ? 2u : 0u) << dump(run);
    EXPECT_EQ(r.heap_at_exit_bytes, child ? 408u + 504u : 0u) << dump(run);
  }
}

TEST(Temporaries, EachMallocFreedBeforeTheNextIsOne) {
  TempDir dir;
  ProcessRecord r = only_record(run_leaks(dir, {"temporaries", "10000"}));
  EXPECT_EQ(r.temporary_allocs, 10000u);
  EXPECT_EQ(r.temporary_bytes, 10000u * 64);
  EXPECT_EQ(r.heap_at_exit_blocks, 0u);
}

TEST(Temporaries, ABlockThatOutlivesTheNextMallocIsNone) {
  TempDir dir;
  ProcessRecord r = only_record(run_leaks(dir, {"interleaved", "1000"}));
  EXPECT_EQ(r.malloc_calls, 2000u);
  EXPECT_EQ(r.temporary_allocs, 1000u);
  EXPECT_EQ(r.temporary_bytes, 1000u * 80);
}

}  // namespace
}  // namespace account::testing
