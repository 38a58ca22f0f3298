// tree/tree_census.h: a pid handed out again during a long watch names a new
// process; the one that ended under it stays in the count and the CPU.
#include "tree_census.h"

#include <gtest/gtest.h>

namespace account {
namespace {

CpuAndExit stat_of(uint64_t start_ticks, uint64_t children_ns) {
  CpuAndExit s;
  s.valid = true;
  s.start_ticks = start_ticks;
  s.children_user_ns = children_ns;
  s.ppid = 1;
  return s;
}

TEST(TreeCensus, AnExecIsTheSameProcess) {
  TreeCensus c(100);
  c.found(7, stat_of(10, 0), true);
  c.found(7, stat_of(10, 0), true);  // its next image
  EXPECT_EQ(c.processes(), 1u);
}

TEST(TreeCensus, APidHandedOutAgainIsAnotherProcessAndTheFirstStaysCounted) {
  TreeCensus c(100);
  c.found(7, stat_of(10, 0), true);
  c.reading(7, stat_of(10, 3000000));  // it reaped a child nobody recorded: 3 ms
  c.ended(7);
  c.found(7, stat_of(900, 0), true);
  c.reading(7, stat_of(900, 2000000));  // so did the new one: 2 ms
  EXPECT_EQ(c.processes(), 2u);
  EXPECT_EQ(c.unseen_cpu_ns(), 5000000u);
  EXPECT_EQ(c.unseen_bound(110, 32768), 8u);  // 10 pids handed out, 2 recorded
}

}  // namespace
}  // namespace account
