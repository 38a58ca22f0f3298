// Real programs run unchanged under the shim: byte-identical stdout and
// stderr, the same exit code, and exactly one record per process image.
#include <gtest/gtest.h>

#include "shim_run.h"

namespace account::testing {
namespace {

TEST(ShimRealPrograms, GitInitAddCommitUnchanged) {
  TempDir dir;
  Env env = git_env(dir);
  std::string script =
      "git -c init.defaultBranch=main init && mkdir -p src/sub && "
      "i=0; while [ $i -lt 20 ]; do echo \"line $i\" > src/f$i.txt; i=$((i+1)); done && "
      "printf 'x\\n' > src/sub/deep.txt && git add . && git commit -m 'first commit' && "
      "git status --short && git log --stat --format='%H %an %s'";
  Comparison c = run_both(dir, {"/bin/sh", "-c", script}, env);
  ASSERT_EQ(c.plain.status, 0) << c.plain.err;
  expect_same(c);
  EXPECT_NE(c.plain.out.find("first commit"), std::string::npos) << c.plain.out;
  auto gits = records_of(c.shim.records, "git");
  // init, add, commit, status, log: each a git image of its own.
  EXPECT_GE(gits.size(), 5u) << slurp(c.shim.output);
  for (const auto& g : gits) {
    if (g.end == "exec") continue;
    EXPECT_EQ(g.end, "exit");
    EXPECT_EQ(g.exit_code, 0);
    EXPECT_GT(g.malloc_calls, 0u);
  }
}

// dash forks for the command substitution: sh + the subshell = 2 records.
TEST(ShimRealPrograms, ShellScriptUnchanged) {
  TempDir dir;
  std::string script =
      "echo out; echo err >&2; x=$(printf abc); echo \"$x\"; "
      "for i in 1 2 3; do echo $i; done | while read n; do echo \"n=$n\"; done; exit 6";
  Comparison c = run_both(dir, {"/bin/sh", "-c", script}, {});
  ASSERT_EQ(c.plain.status, 6);
  ASSERT_EQ(c.plain.out, "out\nabc\nn=1\nn=2\nn=3\n");
  ASSERT_EQ(c.plain.err, "err\n");
  expect_same(c);
  // sh, the $(...) subshell, and the two sides of the pipeline.
  EXPECT_EQ(c.shim.records.processes.size(), 4u) << slurp(c.shim.output);
  for (const auto& r : c.shim.records.processes) EXPECT_EQ(r.exe, "/usr/bin/dash");
}

TEST(ShimRealPrograms, PythonWithThreadsUnchanged) {
  TempDir dir;
  std::string code =
      "import sys, threading\n"
      "results = [0] * 8\n"
      "def work(i):\n"
      "    results[i] = sum(len(str(j) * 3) for j in range(20000 * (i + 1)))\n"
      "threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]\n"
      "[t.start() for t in threads]\n"
      "[t.join() for t in threads]\n"
      "print(results)\n"
      "print('to stderr', file=sys.stderr)\n"
      "sys.exit(3)\n";
  Comparison c = run_both(dir, {"/usr/bin/python3", "-c", code}, {});
  ASSERT_EQ(c.plain.status, 3) << c.plain.err;
  ASSERT_EQ(c.plain.err, "to stderr\n");
  expect_same(c);
  ASSERT_EQ(c.shim.records.processes.size(), 1u) << slurp(c.shim.output);
  const ProcessRecord& r = c.shim.records.processes[0];
  EXPECT_EQ(r.end, "exit");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.argv[0], "/usr/bin/python3");
  EXPECT_GT(r.malloc_calls, 1000u);
  EXPECT_GT(r.free_calls, 1000u);
  EXPECT_GT(r.copied_calls, 0u);
}

}  // namespace
}  // namespace account::testing
