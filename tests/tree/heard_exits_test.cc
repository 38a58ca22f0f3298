// tree/heard_exits.h: how a process reaped before any sampler looked ended,
// from the process events heard; a fake /proc in which the process is gone
// (or a zombie, whose own status wins).
#include "heard_exits.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "fake_proc.h"

namespace account {
namespace {

struct Gone {
  FakeProc proc;  // no file can be read: the process is reaped
  ProcessWatch watch;
  HeardExits heard;
  Gone() { watch.handle.pid = 4242; }
  Ending ending(HeardExits* h) {
    return classify_tree_death(proc, &watch, 4242, Writer::kSampler, h);
  }
};

TEST(HeardExits, AnExitHeardSinceTheForkGivesTheCode) {
  Gone g;
  g.heard.forked(4242);
  g.heard.exited(4242, 7 << 8);
  Ending e = g.ending(&g.heard);
  EXPECT_EQ(e.kind, EndKind::kExit);
  EXPECT_EQ(e.code, 7);
  EXPECT_TRUE(e.code_known);
  EXPECT_EQ(e.writer, Writer::kSampler);
}

TEST(HeardExits, ASignalHeardIsTheSignal) {
  Gone g;
  g.heard.exited(4242, SIGSEGV);
  Ending e = g.ending(&g.heard);
  EXPECT_EQ(e.kind, EndKind::kSignal);
  EXPECT_EQ(e.code, SIGSEGV);
  g.heard.forked(4242);
  g.heard.exited(4242, SIGKILL);
  e = g.ending(&g.heard);
  EXPECT_EQ(e.kind, EndKind::kKilled);
  EXPECT_EQ(e.code, SIGKILL);
  EXPECT_TRUE(e.code_known);
}

// The pid was handed out again after the exit heard: that exit is another
// process's, and this one's end was not heard.
TEST(HeardExits, AForkAfterTheExitMakesItUnknown) {
  Gone g;
  g.heard.exited(4242, 3 << 8);
  g.heard.forked(4242);
  Ending e = g.ending(&g.heard);
  EXPECT_EQ(e.kind, EndKind::kKilled);
  EXPECT_FALSE(e.code_known);
}

TEST(HeardExits, NothingHeardOrNoEventsIsUnknown) {
  Gone g;
  g.heard.exited(4243, 3 << 8);  // another process
  EXPECT_FALSE(g.ending(&g.heard).code_known);
  g.heard.exited(4242, 3 << 8);
  EXPECT_FALSE(g.ending(nullptr).code_known);  // no events read: unknown
  EXPECT_TRUE(g.ending(&g.heard).code_known);
}

// The events are read before the lookup: an exit still waiting in the socket
// counts.
TEST(HeardExits, TheWaitingEventsAreReadFirst) {
  Gone g;
  int reads = 0;
  g.heard.read_first_with([&] {
    if (reads++ == 0) g.heard.exited(4242, 5 << 8);
  });
  Ending e = g.ending(&g.heard);
  EXPECT_EQ(reads, 1);
  EXPECT_EQ(e.kind, EndKind::kExit);
  EXPECT_EQ(e.code, 5);
}

// A zombie's own wait status is read first; what was heard never overrides it.
TEST(HeardExits, AZombiesOwnStatusWins) {
  Gone g;
  g.proc.stat_file = stat_text('Z', 1, 1, 2 << 8);
  g.heard.exited(4242, 9 << 8);
  Ending e = g.ending(&g.heard);
  EXPECT_EQ(e.kind, EndKind::kExit);
  EXPECT_EQ(e.code, 2);
}

// Only the latest 4096 events are kept: an exit followed by that many of
// other processes is forgotten (the tree sampler looks within a few ticks).
TEST(HeardExits, OnlyTheLatestEventsAreKept) {
  Gone g;
  g.heard.exited(4242, 1 << 8);
  for (pid_t pid = 10000; pid < 10000 + 4095; ++pid) g.heard.exited(pid, 0);
  EXPECT_TRUE(g.ending(&g.heard).code_known);
  g.heard.exited(20000, 0);
  EXPECT_FALSE(g.ending(&g.heard).code_known);
}

}  // namespace
}  // namespace account
