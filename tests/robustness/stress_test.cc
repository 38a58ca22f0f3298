// Stress: many threads, fork and exec storms, daemons, signals. Every figure
// that can be exact is compared exactly; every process image has one record.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "robustness.h"

namespace account::testing {
namespace {

struct Totals {
  uint64_t malloc_calls, malloc_bytes, free_calls, copied_calls, copied_bytes;
};

Totals printed(const std::string& out) {
  return {uint64_t(value_after(out, "malloc_calls")), uint64_t(value_after(out, "malloc_bytes")),
          uint64_t(value_after(out, "free_calls")), uint64_t(value_after(out, "copied_calls")),
          uint64_t(value_after(out, "copied_bytes"))};
}

// 64 threads call every interposed malloc and copy function for 2 s. The
// program counts its own calls; the record minus the record of the same
// program with no calls (thread start-up allocates) must equal its count.
TEST(RobustnessStress, SixtyFourThreadsEveryFunctionExactTotals) {
  TempDir dir, base_dir;
  ShimRun base = run_with_shim(base_dir, {robustness_program("mix_threads"), "64", "0"});
  ASSERT_EQ(base.result.status, 0) << dump(base);
  ASSERT_EQ(base.records.processes.size(), 1u) << dump(base);
  ShimRun run = run_with_shim(dir, {robustness_program("mix_threads"), "64", "2000"});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.result.err, "");
  ASSERT_EQ(run.records.processes.size(), 1u) << dump(run);
  Totals want = printed(run.result.out);
  ASSERT_GT(want.malloc_calls, 64u * 1000) << run.result.out;  // it really ran
  const ProcessRecord& r = run.records.processes[0];
  const ProcessRecord& b = base.records.processes[0];
  EXPECT_LT(b.malloc_calls, 1000u);
  EXPECT_EQ(r.malloc_calls - b.malloc_calls, want.malloc_calls);
  EXPECT_EQ(r.malloc_bytes - b.malloc_bytes, want.malloc_bytes);
  EXPECT_EQ(r.free_calls - b.free_calls, want.free_calls);
  // The program's own copies; thread start-up makes some inside libc.
  EXPECT_EQ(own_copied_calls(run, r) - own_copied_calls(base, b), want.copied_calls);
  EXPECT_EQ(own_copied_bytes(run, r) - own_copied_bytes(base, b), want.copied_bytes);
  EXPECT_EQ(r.end, "exit");
  EXPECT_EQ(r.exit_code, 0);
}

// 400 children, half of them forked while 4 threads allocate and copy inside
// libc in the parent, leaving by exit and _exit in turn: exactly one record
// each, with exactly its own figures, libc's copies included (issue 17: the
// patched slots are inherited, the parent's counts are not).
TEST(RobustnessStress, ForkStormOneRecordPerChild) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {robustness_program("fork_storm"), "400", "4"}, {}, 401, 10);
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.result.err, "");
  auto children = values_after(run.result.out, "child");
  ASSERT_EQ(children.size(), 400u) << run.result.out;
  long long parent = value_after(run.result.out, "pid");
  EXPECT_EQ(expect_one_record_per_image(run.records, ""), 401u) << dump(run);
  auto p = records_of_pid(run.records, parent);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].end, "exit");
  for (size_t i = 0; i < children.size(); ++i) {
    auto c = records_of_pid(run.records, children[i]);
    ASSERT_EQ(c.size(), 1u) << "child " << i << " pid " << children[i];
    EXPECT_EQ(c[0].end, "exit");
    EXPECT_EQ(c[0].exit_code, 0);
    EXPECT_EQ(c[0].ppid, parent);
    // The child's own figures: the malloc and free it made, nothing of the parent's.
    EXPECT_EQ(c[0].malloc_calls, 1u) << "child " << i;
    EXPECT_EQ(c[0].malloc_bytes, 1000u + i) << "child " << i;
    // The snprintf's one mempcpy inside libc, and no copy of its own.
    EXPECT_EQ(record_field(run, children[i], "libc_copied_calls"), 1) << "child " << i;
    EXPECT_EQ(record_field(run, children[i], "libc_copied_bytes"), 1000 + (long long)i)
        << "child " << i;
    EXPECT_EQ(c[0].copied_calls, 1u) << "child " << i;
  }
}

// Fork while two threads are inside malloc/realloc/free without pause: no
// deadlock in the child (it allocates), every child recorded.
TEST(RobustnessStress, ForkWhileAnotherThreadIsInsideMalloc) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {robustness_program("fork_in_malloc"), "300"}, {}, 301, 10);
  ASSERT_FALSE(run.result.timed_out) << "deadlock";
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(value_after(run.result.out, "rounds"), 300);
  EXPECT_EQ(expect_one_record_per_image(run.records, ""), 301u) << dump(run);
  long long parent = value_after(run.result.out, "pid");
  for (const auto& r : run.records.processes) {
    if (r.pid == parent) continue;
    EXPECT_EQ(r.ppid, parent);
    EXPECT_EQ(r.malloc_calls, 1u);
    EXPECT_EQ(r.malloc_bytes, 4096u);
    EXPECT_EQ(r.end, "exit");
  }
}

// exec_chain 7 → 6 → ... → 0 through the execveat and execve system calls
// (syscall()), execv, execvp, execl, execle and fexecve: eight images of one
// pid, each writing its own record, seven ending in "exec", the last in exit 7.
TEST(RobustnessStress, ExecChainThroughEveryExecFunction) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {robustness_program("exec_chain"), "7"}, {}, 8);
  EXPECT_EQ(run.result.status, 7) << dump(run);
  EXPECT_EQ(run.result.err, "");
  auto images = values_after(run.result.out, "image");
  ASSERT_EQ(images, (std::vector<long long>{7, 6, 5, 4, 3, 2, 1, 0})) << run.result.out;
  long long pid = value_after(run.result.out, "pid");
  auto r = records_of_pid(run.records, pid);
  ASSERT_EQ(r.size(), 8u) << dump(run);
  EXPECT_EQ(run.records.processes.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(r[i].argv.size(), 2u);
    EXPECT_EQ(r[i].argv[1], std::to_string(7 - i));
    EXPECT_EQ(r[i].exe, robustness_program("exec_chain"));
    EXPECT_EQ(r[i].malloc_calls, 1u) << "image " << 7 - i;
    EXPECT_EQ(r[i].malloc_bytes, uint64_t(100 + 7 - i)) << "image " << 7 - i;
    EXPECT_EQ(r[i].end, i < 7 ? "exec" : "exit") << "image " << 7 - i;
    EXPECT_EQ(r[i].written_by, "process") << "image " << 7 - i;
  }
  EXPECT_EQ(r[7].exit_code, 7);
}

// Each child's figures are those of the same program run alone, libc's
// copies included (issue 17): a vfork child borrows its parent's thread and
// slots until it execs, and nothing of the parent's reaches the new image.
void expect_spawn_storm(const std::string& mode) {
  TempDir dir, alone_dir;
  ShimRun alone = run_with_shim(alone_dir, {test_program("alloc_pattern")});
  ASSERT_EQ(alone.records.processes.size(), 1u) << dump(alone);
  const ProcessRecord& a = alone.records.processes[0];
  long long alone_libc_bytes = record_field(alone, a.pid, "libc_copied_bytes");
  long long alone_libc_calls = record_field(alone, a.pid, "libc_copied_calls");
  ASSERT_GE(alone_libc_calls, 0) << dump(alone);  // counted: the key is there
  ShimRun run = run_with_shim(
      dir, {robustness_program("spawn_storm"), mode, "200", test_program("alloc_pattern")}, {}, 201,
      10);
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.result.err, "");
  auto children = values_after(run.result.out, "child");
  ASSERT_EQ(children.size(), 200u);
  long long parent = value_after(run.result.out, "pid");
  EXPECT_EQ(expect_one_record_per_image(run.records, ""), 201u) << dump(run);
  auto p = records_of_pid(run.records, parent);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].end, "exit");
  for (long long child : children) {
    auto c = records_of_pid(run.records, child);
    ASSERT_EQ(c.size(), 1u) << "pid " << child;
    EXPECT_EQ(c[0].exe, test_program("alloc_pattern"));
    EXPECT_EQ(c[0].malloc_calls, 13u);  // alloc_pattern's own, nothing of the parent's
    EXPECT_EQ(c[0].copied_bytes, a.copied_bytes) << "pid " << child;
    EXPECT_EQ(c[0].copied_calls, a.copied_calls) << "pid " << child;
    EXPECT_EQ(record_field(run, child, "libc_copied_bytes"), alone_libc_bytes) << "pid " << child;
    EXPECT_EQ(record_field(run, child, "libc_copied_calls"), alone_libc_calls) << "pid " << child;
    EXPECT_EQ(c[0].end, "exit");
  }
}

TEST(RobustnessStress, VforkStormOneRecordPerExecutedChild) {
  expect_spawn_storm("vfork");
}

TEST(RobustnessStress, PosixSpawnStormOneRecordPerChild) {
  expect_spawn_storm("spawn");
}

// The target closes every descriptor (the shim holds none it would need), then
// forks, setsid, forks again; the daemon outlives the command. Three records.
TEST(RobustnessStress, ClosesEveryDescriptorAndDaemonizes) {
  TempDir dir;
  std::string marker = dir.file("daemon.pid");
  ShimRun run = run_with_shim(dir, {robustness_program("daemonize"), marker}, {}, 3, 10);
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.result.out, "");
  EXPECT_EQ(run.result.err, "");
  long long daemon = 0;
  std::ifstream(marker) >> daemon;
  ASSERT_GT(daemon, 0) << "the daemon did not run";
  ASSERT_EQ(run.records.processes.size(), 3u) << dump(run);
  EXPECT_EQ(expect_one_record_per_image(run.records, ""), 3u);
  auto d = records_of_pid(run.records, daemon);
  ASSERT_EQ(d.size(), 1u) << dump(run);
  EXPECT_EQ(d[0].malloc_bytes, 12345u);
  EXPECT_EQ(d[0].end, "exit");
  EXPECT_EQ(d[0].exit_code, 0);
  for (const auto& r : run.records.processes) {
    EXPECT_EQ(r.end, "exit");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.written_by, "process");
  }
}

// A relative ACCOUNT_OUTPUT names a file in the directory the image started
// in, even when it changes directory before it exits (and for its children).
TEST(RobustnessStress, ChdirBeforeExitWithRelativeOutput) {
  TempDir dir;
  std::filesystem::create_directory(dir.file("start"));
  std::filesystem::create_directory(dir.file("elsewhere"));
  Env env = clean_env({{"ACCOUNT_OUTPUT", "records.jsonl"}});
  ProgramOptions o;
  o.env = env;
  o.cwd = dir.file("start");
  o.preload = true;
  ProgramResult r = run_program({robustness_program("chdir_exit"), dir.file("elsewhere")}, o);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_FALSE(std::filesystem::exists(dir.file("elsewhere/records.jsonl")))
      << slurp(dir.file("elsewhere/records.jsonl"));
  RecordFile f = read_records(dir.file("start/records.jsonl"));
  ASSERT_EQ(f.processes.size(), 2u) << slurp(dir.file("start/records.jsonl"));
  auto p = records_of_pid(f, value_after(r.out, "pid"));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].malloc_bytes, 777u);
  auto c = records_of_pid(f, value_after(r.out, "child"));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].malloc_bytes, 555u);
}

// SIGALRM every millisecond; the handler allocates and copies while the main
// loop does the same (glibc's malloc is not async-signal-safe, so the main loop
// blocks SIGALRM around its own allocator calls; its copies run unblocked and
// are interrupted by handlers that count in the same slot). Exact totals.
TEST(RobustnessStress, SignalHandlersThatAllocateExactTotals) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {robustness_program("signal_alloc"), "1500"});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.result.err, "");
  ASSERT_EQ(run.records.processes.size(), 1u) << dump(run);
  EXPECT_GT(value_after(run.result.out, "signals"), 200) << run.result.out;
  Totals want = printed(run.result.out);
  const ProcessRecord& r = run.records.processes[0];
  EXPECT_EQ(r.malloc_calls, want.malloc_calls);
  EXPECT_EQ(r.malloc_bytes, want.malloc_bytes);
  EXPECT_EQ(r.free_calls, want.free_calls);
  EXPECT_EQ(own_copied_calls(run, r), want.copied_calls);
  EXPECT_EQ(own_copied_bytes(run, r), want.copied_bytes);
}

}  // namespace
}  // namespace account::testing
