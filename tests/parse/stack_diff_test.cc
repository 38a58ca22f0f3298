// compare/stack_diff.cc: per-run bytes by call stack, what grew and shrank.
#include "compare/stack_diff.h"

#include <gtest/gtest.h>

namespace account {
namespace {

ProcessBacktraces process(std::vector<AllocationGroup> groups) {
  ProcessBacktraces p;
  p.test = "t";
  p.op = "o";
  p.exe = "/usr/bin/prog";
  p.groups = std::move(groups);
  return p;
}

std::vector<Operation> runs(size_t n) {
  Operation o;
  o.test = "t";
  o.op = "o";
  o.runs.resize(n);
  return {o};
}

TEST(StackDiff, BytesAreARunsAndUnchangedStacksAreLeftOut) {
  // Before: 3 runs, 3 x 300 bytes at 0x10 and 3 x 50 at 0x20. After: 1 run,
  // 300 at 0x10 (the same a run), 80 at 0x20 (grew), 10 at 0x30 (new).
  std::vector<ProcessBacktraces> a, b;
  for (int i = 0; i < 3; ++i) a.push_back(process({{1, 300, 300, {0x10}}, {1, 50, 50, {0x20}}}));
  b.push_back(process({{1, 300, 300, {0x10}}, {1, 80, 80, {0x20}}, {1, 10, 10, {0x30}}}));
  SymbolTable none;
  std::vector<Operation> ra = runs(3), rb = runs(1);
  std::vector<OperationStackDiff> d = stack_diff({"A", &a, &none, &ra}, {"B", &b, &none, &rb});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].runs_before, 3u);
  EXPECT_EQ(d[0].runs_after, 1u);
  ASSERT_EQ(d[0].grew.size(), 2u);
  EXPECT_EQ(d[0].grew[0].path, "prog;0x20");
  EXPECT_EQ(d[0].grew[0].before, 50);
  EXPECT_EQ(d[0].grew[0].after, 80);
  EXPECT_EQ(d[0].grew[1].path, "prog;0x30");
  EXPECT_TRUE(d[0].shrank.empty());

  std::vector<OperationStackDiff> back = stack_diff({"B", &b, &none, &rb}, {"A", &a, &none, &ra});
  ASSERT_EQ(back[0].shrank.size(), 2u);
  EXPECT_TRUE(back[0].grew.empty());
  EXPECT_EQ(render_stack_diff(back, "B", "A"),
            "Allocated bytes a run by call stack, A against B (stacks root first; only those "
            "that changed)\n\nTest t, operation o (1 run, 3 runs)\n  shrank:\n"
            "           -30 B  80 B -> 50 B  prog;0x20\n"
            "           -10 B  10 B -> 0 B  prog;0x30\n");
}

}  // namespace
}  // namespace account
