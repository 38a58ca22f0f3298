// tree/process_count.h: processes counted by pid, a pid handed out again
// counted as the new process it names, and which had the shim.
#include "process_count.h"

#include <gtest/gtest.h>

namespace account {
namespace {

constexpr uint64_t kMs = 1000000;
constexpr uint64_t kQuiet = 1000 * kMs;

TEST(ProcessCount, APidSeenAtEveryTickIsOneProcess) {
  ProcessCount c;
  for (uint64_t tick = 1; tick <= 1000; ++tick) c.seen(7, tick * 5 * kMs, tick > 1, kQuiet);
  c.seen(8, 5000 * kMs, false, kQuiet);
  EXPECT_EQ(c.processes(), 2u);
  EXPECT_EQ(c.without_shim(), 2u);
}

// Seen to end: whatever is seen under the pid after that is another process;
// what is seen of it from before (an image file read late) is still it.
TEST(ProcessCount, APidSeenAfterItsProcessEndedNamesANewOne) {
  ProcessCount c;
  c.seen(7, 10 * kMs, false, kQuiet);
  c.shimmed(7);
  c.ended(7, 20 * kMs);
  c.seen(7, 15 * kMs, false, kQuiet, true);  // its exec'd image, whose file is read late
  EXPECT_EQ(c.processes(), 1u);
  c.seen(7, 25 * kMs, false, kQuiet);  // walked: its zombie, still in its parent's list
  EXPECT_EQ(c.processes(), 1u);
  c.seen(7, 30 * kMs, false, kQuiet, true);  // an image that started after the end
  EXPECT_EQ(c.processes(), 2u);
  EXPECT_EQ(c.without_shim(), 1u);  // the new one made no image file (yet)
  c.shimmed(7);
  EXPECT_EQ(c.without_shim(), 0u);
}

// Nobody saw it end: unseen for longer than quiet_ns and not followed, the
// pid names a new process; within it, the same one.
TEST(ProcessCount, APidUnseenForTheQuietTimeNamesANewProcess) {
  ProcessCount c;
  c.seen(7, 10 * kMs, false, kQuiet);
  c.seen(7, 10 * kMs + kQuiet, false, kQuiet);
  EXPECT_EQ(c.processes(), 1u);
  c.seen(7, 20 * kMs + 2 * kQuiet, false, kQuiet);
  EXPECT_EQ(c.processes(), 2u);
  // Followed by the sampler: that process, however long since a tick saw it.
  c.seen(7, 20 * kMs + 10 * kQuiet, true, kQuiet);
  EXPECT_EQ(c.processes(), 2u);
}

// The kernel's process events, read late: a fork after the process under the
// pid was last seen is a new process; one before is that process, seen
// before its fork event was read.
TEST(ProcessCount, AForkEventTellsANewProcessFromOneAlreadySeen) {
  ProcessCount c;
  c.seen(7, 50 * kMs, false, kQuiet);
  c.forked(7, 40 * kMs);
  EXPECT_EQ(c.processes(), 1u);
  c.forked(7, 60 * kMs);
  EXPECT_EQ(c.processes(), 2u);
  c.seen(7, 61 * kMs, false, kQuiet);  // its image file: that one
  EXPECT_EQ(c.processes(), 2u);
  c.forked(9, 70 * kMs);  // never seen at all
  EXPECT_EQ(c.processes(), 3u);
  EXPECT_EQ(c.without_shim(), 3u);
}

// A child that made no image file and never exec'd ran its parent's program:
// with the shim when its parent had it (a vfork child whose exec failed), its
// calls counted in its parent's image. One that exec'd ran another program,
// which made no image file: without.
TEST(ProcessCount, AChildThatNeverExecdHadItsParentsShim) {
  ProcessCount c;
  c.seen(7, 10 * kMs, false, kQuiet, true);
  c.shimmed(7);
  c.forked(8, 20 * kMs, 7);  // a vfork child whose exec failed
  c.forked(9, 30 * kMs, 7);  // one that exec'd a static program
  c.execed(9, 31 * kMs);
  c.forked(10, 40 * kMs, 6);  // a child of a process outside the count
  c.forked(11, 50 * kMs, 9);  // the static program's child
  EXPECT_EQ(c.processes(), 5u);
  EXPECT_EQ(c.without_shim(), 3u);  // 9, 10 and 11
  c.forked(12, 60 * kMs, 7);
  c.execed(12, 61 * kMs);
  c.shimmed(12);  // exec'd a program with the shim
  EXPECT_EQ(c.without_shim(), 3u);
  c.unshimmed(8);  // had it made a file, and lost it: its figures are unknown
  EXPECT_EQ(c.without_shim(), 4u);
}

// An exec from before a process was born is an earlier process's under its
// pid (the events are read in batches, after ticks met the next one).
TEST(ProcessCount, AnExecBeforeAProcessWasBornIsAnEarlierOnes) {
  ProcessCount c;
  c.seen(7, 10 * kMs, false, kQuiet, true);
  c.shimmed(7);
  c.forked(8, 20 * kMs, 7);
  c.ended(8, 25 * kMs);
  c.seen(8, 40 * kMs, false, kQuiet, true);  // the pid's next process, met by its image file
  c.execed(8, 22 * kMs);                     // not this one's
  c.forked(9, 50 * kMs, 8);                  // its child, before it made its file
  EXPECT_EQ(c.processes(), 4u);
  EXPECT_EQ(c.without_shim(), 2u);  // 8 and 9: no file yet
  c.shimmed(8);
  EXPECT_EQ(c.without_shim(), 0u);
}

TEST(ProcessCount, ForgottenAndUnshimmed) {
  ProcessCount c;
  c.seen(7, kMs, false, kQuiet);
  c.seen(8, kMs, false, kQuiet);
  c.shimmed(8);
  c.forget(7);  // a sampler of the shim's, not the tree's
  EXPECT_EQ(c.processes(), 1u);
  EXPECT_EQ(c.without_shim(), 0u);
  c.unshimmed(8);  // its image file was lost
  EXPECT_EQ(c.without_shim(), 1u);
}

}  // namespace
}  // namespace account
