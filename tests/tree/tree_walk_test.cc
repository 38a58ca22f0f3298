// The tree sampler's walk and tick through a fake /proc (fake_tree.h): which
// processes a tick sights, meets, samples and walks, the tree's concurrent
// peak, when children files are read again and how an ended process is found.
// Exact: no real process, no timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "clock.h"
#include "fake_tree.h"
#include "tree_sampler.h"

namespace account {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr pid_t kRun = 100;  // account run: the tree is its children's

std::vector<pid_t> sorted(std::vector<pid_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// account run (100) with two children, the first with a child of its own.
class TreeWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    proc.fork(0, kRun, 1, 1);
    proc.fork(kRun, 101, 10, 4);
    proc.fork(kRun, 102, 20, 8);
    proc.fork(101, 103, 30, 12);
  }
  FakeTree proc;
};

TEST_F(TreeWalkTest, SightedFirstMetSecondWalkedThird) {
  TreeSampler tree(kRun, "", nullptr, proc, proc);
  // Tick 1: the run's children are sighted only (most processes of a script
  // live less than a tick): counted and live, nothing read.
  tree.tick();
  EXPECT_EQ(sorted(tree.live()), (std::vector<pid_t>{101, 102}));
  EXPECT_EQ(tree.processes_seen(), 2u);
  EXPECT_EQ(proc.statm_reads, 0u);
  EXPECT_EQ(tree.peaks().size_bytes, 0u);
  // Tick 2: met in passing, their statm read; their children not yet.
  tree.tick();
  EXPECT_EQ(proc.statm_reads, 2u);
  EXPECT_EQ(tree.peaks().size_bytes, 30 * kMiB);
  EXPECT_EQ(tree.peaks().rss_bytes, 12 * kMiB);
  EXPECT_EQ(tree.processes_seen(), 2u);
  EXPECT_EQ(tree.children_reads(), 0u);
  // Tick 3: insured (a pidfd each) and walked: 103 is sighted.
  tree.tick();
  EXPECT_EQ(tree.children_reads(), 2u);
  EXPECT_EQ(tree.processes_seen(), 3u);
  EXPECT_EQ(sorted(tree.live()), (std::vector<pid_t>{101, 102, 103}));
  EXPECT_EQ(tree.peaks().size_bytes, 30 * kMiB);
  // Tick 4: 103 met; the tree's figure is the sum of all three.
  tree.tick();
  EXPECT_EQ(tree.peaks().size_bytes, 60 * kMiB);
  EXPECT_EQ(tree.peaks().rss_bytes, 24 * kMiB);
  EXPECT_EQ(tree.peaks().samples, 4u);  // one a tick, also a tick that only sighted
  EXPECT_EQ(tree.live_processes(), 3u);
  // No image file: each ran without the shim.
  EXPECT_EQ(tree.processes_without_shim(), 3u);
}

TEST_F(TreeWalkTest, TheTreesPeakIsTheLargestSumNotTheSumOfPeaks) {
  TreeSampler tree(kRun, "", nullptr, proc, proc);
  for (int i = 0; i < 4; ++i) tree.tick();
  EXPECT_EQ(tree.peaks().size_bytes, 60 * kMiB);
  proc.resize(101, 50, 40);
  proc.resize(102, 5, 2);
  proc.resize(103, 1, 1);
  tree.tick();
  EXPECT_EQ(tree.peaks().size_bytes, 60 * kMiB);  // 56: below the earlier sum
  EXPECT_EQ(tree.peaks().rss_bytes, 43 * kMiB);
  proc.resize(101, 1, 1);
  proc.resize(102, 70, 30);
  tree.tick();
  // 101 peaked at 50 MiB and 102 at 70, never at once: 72, not 50+70+30.
  EXPECT_EQ(tree.peaks().size_bytes, 72 * kMiB);
  EXPECT_EQ(tree.peaks().rss_bytes, 43 * kMiB);
}

TEST_F(TreeWalkTest, AnInsuredProcessEndsByItsPidfdOneMetInPassingByItsStat) {
  TreeSampler tree(kRun, "", nullptr, proc, proc);
  for (int i = 0; i < 4; ++i) tree.tick();
  ASSERT_EQ(tree.live_processes(), 3u);
  // 102 was insured at tick 3: its pidfd says it ended.
  proc.end(102, 0);
  tree.tick();
  EXPECT_TRUE(tree.all_ended({102}));
  EXPECT_FALSE(tree.all_ended({101}));
  EXPECT_EQ(tree.live_processes(), 2u);
  EXPECT_GT(tree.last_end_ns(), 0u);
  EXPECT_EQ(tree.peaks().size_bytes, 60 * kMiB);  // the peak it was part of stays
  // 104 is forked, sighted, met at its second sighting, and ends before it
  // is insured: no pidfd, its statm and stat (a zombie) say so.
  proc.fork(101, 104, 8, 8);
  tree.tick();
  EXPECT_EQ(tree.processes_seen(), 4u);
  tree.tick();
  EXPECT_EQ(tree.live_processes(), 3u);
  proc.end(104, 9);
  tree.handle_ended();
  EXPECT_TRUE(tree.all_ended({104}));
  EXPECT_EQ(tree.live_processes(), 2u);
  EXPECT_EQ(tree.processes_seen(), 4u);  // an ended process is still the tree's
  EXPECT_EQ(tree.processes_without_shim(), 4u);
}

// Over a long run the kernel hands a pid out again (pid_max: 32768 on many
// machines): the process it then names is counted as the new one it is, and
// without the shim unless it makes an image file.
TEST_F(TreeWalkTest, APidHandedOutAgainIsAnotherProcess) {
  TreeSampler tree(kRun, "", nullptr, proc, proc);
  for (int i = 0; i < 5; ++i) tree.tick();  // 103 met and insured: followed
  EXPECT_EQ(tree.processes_seen(), 3u);
  proc.end(103, 0);
  tree.tick();  // seen to end
  proc.reap(103, kRun);
  proc.fork(102, 104, 8, 8);  // pids go on being handed out
  tree.tick();
  tree.tick();
  EXPECT_EQ(tree.processes_seen(), 4u);
  proc.fork(101, 103, 8, 8);              // 103 again: a new process
  tree.forked(103, monotonic_ns(), 101);  // as the kernel's process events tell it (root)
  tree.tick();
  tree.tick();
  EXPECT_EQ(sorted(tree.live()), (std::vector<pid_t>{101, 102, 103, 104}));
  EXPECT_EQ(tree.processes_seen(), 5u);
  EXPECT_EQ(tree.processes_without_shim(), 5u);
}

TEST_F(TreeWalkTest, ChildrenAreReadAgainAfterAForkAndEveryKSlowEveryTicks) {
  TreeSampler tree(kRun, "", nullptr, proc, proc);
  for (int i = 0; i < 3; ++i) tree.tick();
  EXPECT_EQ(tree.children_reads(), 2u);  // tick 3: 101's and 102's first
  // Tick 3 walked fewer than two processes before it, so it did not read the
  // last pid: not known to be steady, tick 4 reads both again.
  tree.tick();
  EXPECT_EQ(tree.children_reads(), 4u);
  tree.tick();
  EXPECT_EQ(tree.children_reads(), 5u);  // tick 5: 103 insured, its first
  uint64_t walked = tree.children_reads();
  uint64_t all = proc.children_reads;  // the run's own children too
  // A steady tree: no pid handed out, nothing read again (ticks 6 to 19).
  for (uint64_t t = 6; t < kSlowEvery; ++t) tree.tick();
  EXPECT_EQ(tree.children_reads(), walked);
  EXPECT_EQ(proc.children_reads, all);
  // A fork: every walked process's children are read at the next tick.
  proc.fork(103, 104, 2, 2);
  tree.tick();  // tick 20 = kSlowEvery: also the run's own, on the schedule
  EXPECT_EQ(tree.children_reads(), walked + 3);  // 101, 102, 103
  EXPECT_EQ(proc.children_reads, all + 4);
  EXPECT_EQ(tree.processes_seen(), 4u);
  EXPECT_EQ(sorted(tree.live()), (std::vector<pid_t>{101, 102, 103, 104}));
}

TEST_F(TreeWalkTest, TheShimsSamplerProcessesAreNotTheTrees) {
  proc.fork(102, 105, 100, 100).comm = "account-sampler";
  TreeSampler tree(kRun, "", nullptr, proc, proc);
  for (int i = 0; i < 5; ++i) tree.tick();
  EXPECT_EQ(tree.processes_seen(), 3u);
  EXPECT_EQ(tree.peaks().size_bytes, 60 * kMiB);
  EXPECT_EQ(tree.live_processes(), 3u);
}

}  // namespace
}  // namespace account
