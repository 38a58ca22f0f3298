// account run's tree record: concurrent peaks of the summed tree.
#include <gtest/gtest.h>

#include "records.h"
#include "run_program.h"

namespace account::testing {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

ProgramOptions hold_options() {
  ProgramOptions o;
  o.env["HOLD"] = std::string(SAMPLER_PROGRAMS_DIR) + "/hold_memory";
  return o;
}

TreeRecord run_tree(const std::string& script, const std::string& path) {
  auto r = run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", path, "--test", "tree", "--op", "hold",
                        "--", "sh", "-c", script},
                       hold_options());
  EXPECT_EQ(r.status, 0) << r.err;
  RecordFile f = read_records(path);
  EXPECT_TRUE(f.bad_lines.empty());
  EXPECT_EQ(f.trees.size(), 1u);
  return f.trees.empty() ? TreeRecord{} : f.trees[0];
}

TEST(TreeSampling, ConcurrentChildrenAddUp) {
  TempDir dir;
  TreeRecord t =
      run_tree("$HOLD 50 400 >/dev/null & $HOLD 50 400 >/dev/null & $HOLD 50 400 >/dev/null & wait",
               dir.file("r.jsonl"));
  EXPECT_GE(t.sampled_rss_peak_bytes, 150 * kMiB);
  EXPECT_GE(t.processes, 4u);  // sh and three children
  EXPECT_EQ(t.test, "tree");
  EXPECT_EQ(t.op, "hold");
  EXPECT_EQ(t.exit_code, 0);
  EXPECT_FALSE(t.aborted);
  // sh, its three fork children (each ends by exec) and the three programs.
  RecordFile f = read_records(dir.file("r.jsonl"));
  EXPECT_EQ(f.processes.size(), 7u);
  EXPECT_EQ(records_of(f, "hold_memory").size(), 3u);
  size_t execs = 0;
  for (auto& p : f.processes) execs += p.end == "exec";
  EXPECT_EQ(execs, 3u);
}

TEST(TreeSampling, SequentialChildrenDoNot) {
  TempDir dir;
  TreeRecord t =
      run_tree("$HOLD 50 150 >/dev/null; $HOLD 50 150 >/dev/null; $HOLD 50 150 >/dev/null",
               dir.file("r.jsonl"));
  EXPECT_GE(t.sampled_rss_peak_bytes, 50 * kMiB);
  EXPECT_LT(t.sampled_rss_peak_bytes, 100 * kMiB);
}

TEST(TreeSampling, TimeoutKillsTheTreeAndMarksTheRunAborted) {
  TempDir dir;
  auto start = std::chrono::steady_clock::now();
  auto r = run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", dir.file("r.jsonl"), "--timeout",
                        "0.3", "--", "sh", "-c", "sleep 30 & sleep 30; echo never"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, 128 + 9);
  EXPECT_EQ(r.out, "");
  EXPECT_LT(seconds, 5.0);
  RecordFile f = read_records(dir.file("r.jsonl"));
  ASSERT_EQ(f.trees.size(), 1u);
  EXPECT_TRUE(f.trees[0].aborted);
  EXPECT_EQ(f.trees[0].signal, 9);
  // sh and both sleeps were killed and recorded by their samplers.
  size_t killed = 0;
  for (auto& p : f.processes) killed += p.end == "killed";
  EXPECT_EQ(killed, 3u);
}

}  // namespace
}  // namespace account::testing
