// Process life cycles: fork, exec, posix_spawn, vfork, _exit, signals. Each
// process image must yield exactly one record, with its own figures.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "shim_run.h"

namespace account::testing {
namespace {

ShimRun run_processes(const TempDir& dir, const std::vector<std::string>& args, Env env = {},
                      size_t min_records = 0) {
  std::vector<std::string> argv{test_program("processes")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_with_shim(dir, argv, env, min_records);
}

// A run of processes.c that starts one child: the pids it printed and the
// records of each.
struct Family {
  ShimRun run;
  long long parent = 0;
  long long child = 0;
  std::vector<ProcessRecord> of_parent;
  std::vector<ProcessRecord> of_child;
};

Family run_family(const TempDir& dir, const std::vector<std::string>& args) {
  Family f;
  f.run = run_processes(dir, args);
  f.parent = value_after(f.run.result.out, "pid");
  f.child = value_after(f.run.result.out, "child");
  f.of_parent = records_of_pid(f.run.records, f.parent);
  f.of_child = records_of_pid(f.run.records, f.child);
  return f;
}

TEST(ShimProcesses, ForkChildAndParentCountOnlyTheirOwnCalls) {
  TempDir dir;
  Family f = run_family(dir, {"fork"});
  const ShimRun& run = f.run;
  ASSERT_EQ(run.result.status, 0) << dump(run);
  ASSERT_EQ(value_after(run.result.out, "status"), 7) << dump(run);
  ASSERT_TRUE(run.records.bad_lines.empty());
  ASSERT_EQ(run.records.processes.size(), 2u) << dump(run);

  const auto& p = f.of_parent;
  ASSERT_EQ(p.size(), 1u) << dump(run);
  EXPECT_EQ(p[0].malloc_calls, 5u);  // 3 x 1000 before the fork, 2 x 3000 after
  EXPECT_EQ(p[0].malloc_bytes, 3u * 1000 + 2 * 3000);
  EXPECT_EQ(p[0].free_calls, 2u);
  EXPECT_EQ(own_copied_calls(run, p[0]), 1u);
  EXPECT_EQ(own_copied_bytes(run, p[0]), 333u);
  EXPECT_EQ(p[0].end, "exit");
  EXPECT_EQ(p[0].exit_code, 0);

  const auto& c = f.of_child;
  ASSERT_EQ(c.size(), 1u) << dump(run);
  EXPECT_EQ(c[0].ppid, f.parent);
  EXPECT_EQ(c[0].malloc_calls, 5u);
  EXPECT_EQ(c[0].malloc_bytes, 5u * 2000);
  EXPECT_EQ(c[0].free_calls, 5u);
  EXPECT_EQ(own_copied_calls(run, c[0]), 1u);
  EXPECT_EQ(own_copied_bytes(run, c[0]), 777u);
  EXPECT_EQ(c[0].end, "exit");
  EXPECT_EQ(c[0].exit_code, 7);
  EXPECT_GE(c[0].start_ns, p[0].start_ns);
}

TEST(ShimProcesses, ForkChildLeavingWithUnderscoreExitIsRecorded) {
  TempDir dir;
  Family f = run_family(dir, {"fork_exit_"});
  const ShimRun& run = f.run;
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(value_after(run.result.out, "status"), 9);
  ASSERT_EQ(run.records.processes.size(), 2u) << dump(run);
  const auto& c = f.of_child;
  ASSERT_EQ(c.size(), 1u) << dump(run);
  EXPECT_EQ(c[0].end, "exit");
  EXPECT_EQ(c[0].exit_code, 9);
  EXPECT_EQ(c[0].malloc_calls, 1u);
  EXPECT_EQ(c[0].malloc_bytes, 123u);
  const auto& p = f.of_parent;
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].malloc_calls, 0u);
}

TEST(ShimProcesses, ForkThenExecRecordsTheChildImageAndTheNewImage) {
  TempDir dir;
  Family f = run_family(dir, {"fork_exec", test_program("alloc_pattern")});
  const ShimRun& run = f.run;
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(value_after(run.result.out, "status"), 0);
  ASSERT_EQ(run.records.processes.size(), 3u) << dump(run);
  const auto& c = f.of_child;
  ASSERT_EQ(c.size(), 2u) << dump(run);
  // The forked copy of `processes`, ended by exec: only the child's malloc(500).
  EXPECT_EQ(c[0].end, "exec");
  EXPECT_FALSE(c[0].exit_code.has_value());
  EXPECT_EQ(c[0].malloc_calls, 1u);
  EXPECT_EQ(c[0].malloc_bytes, 500u);
  ASSERT_FALSE(c[0].argv.empty());
  EXPECT_EQ(c[0].argv[0], test_program("processes"));
  // The new image starts from zero.
  EXPECT_EQ(c[1].argv, std::vector<std::string>{test_program("alloc_pattern")});
  EXPECT_EQ(c[1].exe, test_program("alloc_pattern"));
  EXPECT_EQ(c[1].end, "exit");
  EXPECT_EQ(c[1].exit_code, 0);
  EXPECT_EQ(c[1].malloc_calls, 13u);
  EXPECT_EQ(c[1].malloc_bytes, 1064576u);
  EXPECT_EQ(c[1].ppid, f.parent);
  EXPECT_EQ(f.of_parent.size(), 1u);
  // Every image names this machine: the parent, the fork child and the exec'd image.
  std::string host = uname_n();
  ASSERT_FALSE(host.empty());
  for (const ProcessRecord& p : run.records.processes) EXPECT_EQ(p.host, host) << p.pid;
}

TEST(ShimProcesses, FailedExecOfMissingPathThenExecGivesOneExecRecord) {
  TempDir dir;
  ShimRun run = run_processes(dir, {"exec_missing", test_program("alloc_pattern")});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  long long pid = value_after(run.result.out, "pid");
  auto own = records_of_pid(run.records, pid);
  ASSERT_EQ(run.records.processes.size(), 2u) << dump(run);
  ASSERT_EQ(own.size(), 2u);
  EXPECT_EQ(own[0].end, "exec");
  EXPECT_EQ(own[0].malloc_calls, 1u);
  EXPECT_EQ(own[0].malloc_bytes, 64u);
  EXPECT_EQ(own[1].exe, test_program("alloc_pattern"));
  EXPECT_EQ(own[1].malloc_calls, 13u);
  EXPECT_EQ(own[1].end, "exit");
}

TEST(ShimProcesses, ExecvpSearchingPathPastMissingDirectories) {
  TempDir dir;
  std::string programs = test_program("");
  programs.pop_back();  // the trailing '/'
  ShimRun run = run_processes(dir, {"execvp", "alloc_pattern"},
                              {{"PATH", "/nonexistent-a:" + dir.path() + ":" + programs}});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  long long pid = value_after(run.result.out, "pid");
  auto own = records_of_pid(run.records, pid);
  ASSERT_EQ(run.records.processes.size(), 2u) << dump(run);
  ASSERT_EQ(own.size(), 2u);
  EXPECT_EQ(own[0].end, "exec");
  EXPECT_EQ(own[0].malloc_bytes, 64u);
  EXPECT_EQ(own[1].exe, test_program("alloc_pattern"));
  EXPECT_EQ(own[1].malloc_calls, 13u);
}

// An exec of an existing executable file can still fail (a missing script
// interpreter: ENOENT; an unknown format: ENOEXEC). The image goes on and must
// be recorded as it really ends, not as an exec that never happened.
void expect_failed_exec_recorded_as_exit(const std::string& content, int expected_errno) {
  TempDir dir;
  std::string target = dir.file("not-runnable");
  { std::ofstream(target) << content; }
  ASSERT_EQ(chmod(target.c_str(), 0755), 0);
  ShimRun run = run_processes(dir, {"exec_fail", target});
  EXPECT_EQ(run.result.status, 3) << dump(run);
  EXPECT_EQ(value_after(run.result.out, "errno"), expected_errno) << dump(run);
  ASSERT_EQ(run.records.processes.size(), 1u) << dump(run);
  const ProcessRecord& r = run.records.processes[0];
  EXPECT_EQ(r.end, "exit") << dump(run);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.malloc_calls, 1u);
  EXPECT_EQ(r.malloc_bytes, 64u);
}

TEST(ShimProcesses, FailedExecOfScriptWithMissingInterpreterIsRecordedAsExit) {
  expect_failed_exec_recorded_as_exit("#!/nonexistent/interpreter\n", ENOENT);
}

TEST(ShimProcesses, FailedExecOfUnknownFormatIsRecordedAsExit) {
  expect_failed_exec_recorded_as_exit("\x01\x02 not a program\n", ENOEXEC);
}

// An exec the shim expected to succeed (it wrote the record first) fails: the
// /proc files the record read, left open for exec to close, are closed, and
// the program goes on with exactly the descriptors it had.
TEST(ShimProcesses, FailedExecAfterTheRecordLeavesNoDescriptorOpen) {
  TempDir dir;
  ShimRun run = run_processes(dir, {"exec_e2big", test_program("alloc_pattern")});
  EXPECT_EQ(run.result.status, 3) << dump(run);
  EXPECT_EQ(value_after(run.result.out, "errno"), E2BIG) << dump(run);
  size_t before = run.result.out.find("fds_before=");
  size_t after = run.result.out.find(" fds_after=");
  ASSERT_NE(before, std::string::npos) << dump(run);
  ASSERT_NE(after, std::string::npos) << dump(run);
  std::string fds_before = run.result.out.substr(before + 11, after - before - 11);
  std::string fds_after = run.result.out.substr(after + 11);
  fds_after = fds_after.substr(0, fds_after.find('\n'));
  EXPECT_EQ(fds_after, fds_before) << dump(run);
}

TEST(ShimProcesses, PosixSpawnChildIsRecordedSeparately) {
  TempDir dir;
  Family f = run_family(dir, {"spawn", test_program("alloc_pattern")});
  const ShimRun& run = f.run;
  ASSERT_EQ(run.result.status, 0) << dump(run);
  ASSERT_EQ(run.records.processes.size(), 2u) << dump(run);
  const auto& p = f.of_parent;
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].malloc_calls, 1u);
  EXPECT_EQ(p[0].malloc_bytes, 10u);
  EXPECT_EQ(p[0].free_calls, 1u);
  EXPECT_EQ(p[0].end, "exit");
  const auto& c = f.of_child;
  ASSERT_EQ(c.size(), 1u) << dump(run);
  EXPECT_EQ(c[0].exe, test_program("alloc_pattern"));
  EXPECT_EQ(c[0].ppid, f.parent);
  EXPECT_EQ(c[0].malloc_calls, 13u);
  EXPECT_EQ(c[0].end, "exit");
}

TEST(ShimProcesses, VforkChildGetsNoRecordOfItsOwn) {
  TempDir dir;
  Family f = run_family(dir, {"vfork_exec", test_program("alloc_pattern")});
  const ShimRun& run = f.run;
  ASSERT_EQ(run.result.status, 0) << dump(run);
  ASSERT_EQ(run.records.processes.size(), 2u) << dump(run);
  const auto& p = f.of_parent;
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].end, "exit");
  const auto& c = f.of_child;
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].exe, test_program("alloc_pattern"));
  EXPECT_EQ(c[0].malloc_calls, 13u);
}

TEST(ShimProcesses, VforkChildUnderscoreExitDoesNotEndTheParentsRecord) {
  TempDir dir;
  ShimRun run = run_processes(dir, {"vfork_exit"});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(value_after(run.result.out, "status"), 5);
  ASSERT_EQ(run.records.processes.size(), 1u) << dump(run);
  EXPECT_EQ(run.records.processes[0].pid, value_after(run.result.out, "pid"));
  EXPECT_EQ(run.records.processes[0].exit_code, 0);
}

class ShimExitCodes : public ::testing::TestWithParam<std::string> {};

TEST_P(ShimExitCodes, RecordWrittenAndExitCodePropagated) {
  for (int code : {0, 42, 255}) {
    TempDir dir;
    ShimRun run = run_processes(dir, {GetParam(), std::to_string(code)});
    EXPECT_EQ(run.result.status, code) << dump(run);
    EXPECT_EQ(run.result.out, "pid=" + std::to_string(value_after(run.result.out, "pid")) + "\n");
    EXPECT_EQ(run.result.err, "");
    ASSERT_EQ(run.records.processes.size(), 1u) << dump(run);
    const ProcessRecord& r = run.records.processes[0];
    EXPECT_EQ(r.end, "exit");
    EXPECT_EQ(r.exit_code, code);
    EXPECT_EQ(r.written_by, "process");
    EXPECT_EQ(r.malloc_calls, 1u);
    EXPECT_EQ(r.malloc_bytes, 11u);
  }
}

INSTANTIATE_TEST_SUITE_P(Ways, ShimExitCodes,
                         ::testing::Values("return", "exit", "_exit", "_Exit", "quick_exit",
                                           "exit_group", "altstack_exit"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n[0] == '_' ? "underscore" + n : n;
                         });

// A process killed by a signal runs no code: its sampler writes the record.
// Here the parent (run_program) reaps the child at once, so the sampler may
// find it gone before reading how it died: "killed" without a signal is then
// allowed; a "signal" record must name the right one. (Under `account run`,
// which keeps the zombie for the sampler, the cause is exact: see
// AccountRun.SignalStatusAndSignalRecord.)
void expect_signal_record(int sig, const std::string& delay_ms) {
  TempDir dir;
  ShimRun run = run_with_shim(
      dir, {test_program("processes"), "signal", std::to_string(sig), delay_ms}, {}, 1, 1.0);
  EXPECT_EQ(run.result.status, 128 + sig);
  ASSERT_EQ(run.records.processes.size(), 1u)
      << "signal " << sig << ", dying after " << delay_ms << " ms: " << dump(run);
  const ProcessRecord& r = run.records.processes[0];
  if (r.end == "signal" || (r.end == "killed" && r.signal.has_value()))
    EXPECT_EQ(r.signal, sig);
  else
    EXPECT_EQ(r.end, "killed");
  if (sig == 9) {
    EXPECT_EQ(r.end, "killed");
  }
  EXPECT_EQ(r.host, uname_n());  // written by the sampler, from the image's identity
  EXPECT_FALSE(r.exit_code.has_value());
  EXPECT_EQ(r.written_by, "sampler");
  EXPECT_EQ(r.pid, value_after(run.result.out, "pid"));
  EXPECT_EQ(r.malloc_calls, 1u);
  EXPECT_EQ(r.malloc_bytes, 11u);
}

TEST(ShimProcesses, FatalSignalRecordedBySampler) {
  expect_signal_record(15, "50");
}

TEST(ShimProcesses, SigkillRecordedBySampler) {
  expect_signal_record(9, "50");
}

// A main thread that ends with pthread_exit while a worker runs on leaves
// /proc/<pid> reading as a zombie's. The process's memory is still there,
// read through the live thread: the worker's 40 MiB, held for 300 ms (60
// intervals), is in the kernel's peaks and the sampled ones, and the record
// is the process's own, with the exit code the worker ends it with. Killed
// instead, the sampler writes it: "killed", signal 9, the same counts.
// The one record of a leader_exits run, with the checks every ending shares.
ProcessRecord leader_exits_record(const std::vector<std::string>& args, ShimRun* run) {
  TempDir dir;
  *run = run_with_shim(dir, args, {}, 1);
  std::vector<ProcessRecord> records =
      records_of_pid(run->records, value_after(run->result.out, "pid"));
  EXPECT_EQ(records.size(), 1u) << dump(*run);
  if (records.empty()) return ProcessRecord{};
  const ProcessRecord& r = records[0];
  constexpr uint64_t kBlock = uint64_t(40) << 20;
  // The block, and what glibc's pthread_create allocates (a few hundred bytes).
  EXPECT_GE(r.malloc_bytes, kBlock) << dump(*run);
  EXPECT_LT(r.malloc_bytes, kBlock + 64 * 1024) << dump(*run);
  EXPECT_GE(r.vm_peak_bytes, kBlock) << dump(*run);
  EXPECT_GE(r.rss_peak_bytes, kBlock) << dump(*run);
  EXPECT_GE(r.sampled_rss_peak_bytes, kBlock) << dump(*run);
  EXPECT_GE(r.sampled_size_peak_bytes, kBlock) << dump(*run);
  return r;
}

TEST(ShimProcesses, AMainThreadThatEndsFirstLeavesThePeaksAndTheRecord) {
  ShimRun run;
  ProcessRecord r = leader_exits_record({test_program("leader_exits"), "3"}, &run);
  EXPECT_EQ(run.result.status, 3) << dump(run);
  EXPECT_EQ(r.end, "exit") << dump(run);
  EXPECT_EQ(r.exit_code, 3) << dump(run);
  EXPECT_EQ(r.written_by, "process") << dump(run);
}

TEST(ShimProcesses, AMainThreadThatEndsFirstThenKilledIsRecordedBySampler) {
  ShimRun run;
  ProcessRecord r = leader_exits_record({test_program("leader_exits"), "0", "kill"}, &run);
  EXPECT_EQ(r.end, "killed") << dump(run);
  EXPECT_EQ(r.signal, 9) << dump(run);
  EXPECT_EQ(r.written_by, "sampler") << dump(run);
}

// Dying at once, before the sampler has set itself up, under a parent that
// reaps at once (a shell), must not lose the record either: 60 processes
// killed by SIGKILL right after start, 60 records.
TEST(ShimProcesses, SigkillRightAfterStartUnderShellStillRecorded) {
  TempDir dir;
  std::string script = "i=0; while [ $i -lt 60 ]; do " + test_program("processes") +
                       " signal 9 0; i=$((i+1)); done; true";
  ShimRun run = run_with_shim(dir, {"/bin/sh", "-c", script}, {}, 61, 2.0);
  ASSERT_EQ(run.result.status, 0) << dump(run);
  auto killed = records_of(run.records, "/processes");
  EXPECT_EQ(killed.size(), 60u) << dump(run);
  for (const auto& r : killed) {
    EXPECT_EQ(r.end, "killed");
    EXPECT_EQ(r.written_by, "sampler");
    EXPECT_EQ(r.malloc_bytes, 11u);
  }
}

// The helper that starts the sampler shares the program's memory; it is
// created on the program's CPU and kept there (see sampler_process.cc), and the
// program's own CPUs are given back at once. Then, with the record written,
// the program ends and reaps it: nothing of it is left.
TEST(ShimProcesses, SamplerHelperPinnedBesideTheProgramWhoseCpusStayItsOwn) {
  cpu_set_t ours;
  ASSERT_EQ(sched_getaffinity(0, sizeof ours, &ours), 0);
  TempDir dir;
  // An interval longer than the program lives: the helper is still waiting.
  ShimRun run = run_processes(dir, {"affinity"}, {{"ACCOUNT_SAMPLE_MS", "1000"}});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(value_after(run.result.out, "cpus"), CPU_COUNT(&ours)) << run.result.out;
  long long helper = value_after(run.result.out, "helper");
  ASSERT_GT(helper, 0) << run.result.out;
  EXPECT_EQ(value_after(run.result.out, "helper_cpus"), 1) << run.result.out;
  EXPECT_NE(access(("/proc/" + std::to_string(helper)).c_str(), F_OK), 0)
      << "helper " << helper << " outlived the program";
  ASSERT_EQ(run.records.processes.size(), 1u) << dump(run);
  EXPECT_EQ(run.records.processes[0].written_by, "process");
}

// A realtime program keeps its CPU for as long as it likes: a helper of its
// policy beside it there would start no sampler. Its helper is not pinned.
TEST(ShimProcesses, SamplerHelperOfARealtimeProgramNotPinned) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for SCHED_FIFO";
  cpu_set_t ours;
  ASSERT_EQ(sched_getaffinity(0, sizeof ours, &ours), 0);
  TempDir dir;
  ShimRun run = run_with_shim(dir, {"chrt", "-f", "1", test_program("processes"), "affinity"},
                              {{"ACCOUNT_SAMPLE_MS", "1000"}});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  ASSERT_GT(value_after(run.result.out, "helper"), 0) << run.result.out;
  EXPECT_EQ(value_after(run.result.out, "helper_cpus"), CPU_COUNT(&ours)) << run.result.out;
}

// dash forks each pipeline element (each child then execs) and vforks the last
// simple command: 1 sh + 2 forked sh copies ending in exec + alloc_pattern +
// hello + hello = 6 records.
TEST(ShimProcesses, ShellPipelineOneRecordPerImage) {
  TempDir dir;
  std::string script = test_program("alloc_pattern") + " | " + test_program("hello") +
                       " piped 0; " + test_program("hello") + " last 4";
  ShimRun run = run_with_shim(dir, {"/bin/sh", "-c", script});
  EXPECT_EQ(run.result.status, 4);
  EXPECT_EQ(run.result.out, "hello from piped\nhello from last\n");
  EXPECT_EQ(run.result.err, "note\nnote\n");
  ASSERT_TRUE(run.records.bad_lines.empty());
  ASSERT_EQ(run.records.processes.size(), 6u) << dump(run);
  auto alloc = records_of(run.records, "/alloc_pattern");
  ASSERT_EQ(alloc.size(), 1u);
  EXPECT_EQ(alloc[0].malloc_calls, 13u);
  EXPECT_EQ(records_of(run.records, "/hello").size(), 2u);
  int execs = 0;
  for (const auto& r : run.records.processes) execs += r.end == "exec";
  EXPECT_EQ(execs, 2);
  // The two sh copies that exec'd share their pid with the new image.
  for (const auto& r : run.records.processes) {
    if (r.end != "exec") continue;
    auto same = records_of_pid(run.records, r.pid);
    ASSERT_EQ(same.size(), 2u);
    EXPECT_EQ(same[0].exe, "/usr/bin/dash");
    EXPECT_EQ(same[1].end, "exit");
  }
}

}  // namespace
}  // namespace account::testing
