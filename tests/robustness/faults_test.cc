// Faults in the record file: a truncated last line (a writer killed mid-line,
// a full disk) followed by many processes appending at the same moment.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "robustness.h"

namespace account::testing {
namespace {

// The one record of `program`: it exited with `code`, its sampler wrote what
// the image itself could not, with its 1000 bytes from malloc.
void expect_exit_written_by_sampler(const ShimRun& run, const std::string& program, int code) {
  std::vector<ProcessRecord> mine = records_of(run.records, program);
  ASSERT_EQ(mine.size(), 1u) << dump(run);
  EXPECT_EQ(mine[0].end, "exit");
  EXPECT_EQ(mine[0].exit_code, code);
  EXPECT_EQ(mine[0].written_by, "sampler");
  EXPECT_EQ(mine[0].malloc_bytes, 1000u);
}

// Three good records and a truncated fourth line, then 200 processes (and
// their parent) exit at once, each appending a record longer than PIPE_BUF.
// Every appended record parses (none interleaved, none glued to the truncated
// line), the truncated line is the only bad one, and `account report` names it
// and exits 2.
TEST(RobustnessFaults, TruncatedLastLineThenTwoHundredConcurrentAppends) {
  TempDir dir;
  std::string file = dir.file("records.jsonl");
  ShimRun seed = run_with_shim(dir, {"/bin/sh", "-c", "/bin/true; /bin/true; :"});
  ASSERT_EQ(seed.records.processes.size(), 3u) << dump(seed);
  std::string good = slurp(file);
  std::string last = good.substr(0, good.find('\n') + 1);
  {
    std::ofstream out(file, std::ios::app);
    out << last.substr(0, last.size() / 2);  // no newline: a writer died here
  }
  std::string padding(6000, 'p');
  ShimRun run =
      run_with_shim(dir, {robustness_program("append_storm"), "200", padding}, {}, 205, 10);
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  EXPECT_EQ(run.result.err, "");
  RecordFile f = read_records(file);
  ASSERT_EQ(f.bad_lines.size(), 1u) << ::testing::PrintToString(f.bad_lines);
  EXPECT_EQ(f.bad_lines[0].substr(0, 3), "4: ") << f.bad_lines[0];
  EXPECT_EQ(f.processes.size(), 3u + 201) << "records lost or glued together";
  long long parent = value_after(run.result.out, "pid");
  std::set<int64_t> pids;
  size_t children = 0;
  for (size_t i = 3; i < f.processes.size(); ++i) {
    const auto& r = f.processes[i];
    EXPECT_TRUE(pids.insert(r.pid).second) << "pid " << r.pid << " twice";
    ASSERT_EQ(r.argv.size(), 3u);
    EXPECT_EQ(r.argv[2], padding);
    if (r.pid != parent) {
      ++children;
      EXPECT_EQ(r.ppid, parent);
      EXPECT_EQ(r.end, "exit");
    }
  }
  EXPECT_EQ(children, 200u);

  ProgramOptions o;
  o.env = clean_env();
  ProgramResult report = run_program({ACCOUNT_CLI_PATH, "report", file}, o);
  EXPECT_EQ(report.status, 2) << report.err;
  EXPECT_EQ(report.err.rfind(file + ":4: ", 0), 0u) << report.err;
  EXPECT_NE(report.err.find("\naccount: skipped 1 bad line; 204 records read\n"), std::string::npos)
      << report.err;
  EXPECT_NE(report.out.find("Operation"), std::string::npos) << report.out;
}

// A file size limit (`ulimit -f`, RLIMIT_FSIZE) never ends a program for
// the shim's sake: past it the kernel fails a write or an ftruncate with
// EFBIG and sends SIGXFSZ, whose default action kills. Standalone, with the
// record file already at the limit, prlimit's exec record and hello's are
// not written (a warning line each, no part line); under account run, where
// an image file (about 256 KiB) would pass a 100000-byte limit, each image
// runs standalone and leaves an empty marker file that tells the run it has
// the shim. Before, both were killed by SIGXFSZ (exit 153 from a shell).
TEST(RobustnessFaults, AFileSizeLimitNeverEndsTheProgram) {
  TempDir dir;
  std::string hello = test_program("hello");
  ShimRun seed = run_with_shim(dir, {hello, "seed"});
  ASSERT_EQ(seed.result.status, 0) << dump(seed);
  std::string before = slurp(seed.output);
  // The limit is the file's size: no record fits.
  std::string limit = "--fsize=" + std::to_string(before.size());
  ShimRun limited = run_with_shim(dir, {"/usr/bin/prlimit", limit, hello, "limited", "3"});
  EXPECT_EQ(limited.result.status, 3) << dump(limited);
  EXPECT_EQ(limited.result.out, "hello from limited\n");
  EXPECT_EQ(slurp(seed.output), before);  // nothing appended, not even part of a line
  EXPECT_NE(limited.result.err.find("File too large"), std::string::npos) << limited.result.err;

  // Under account run: a shell and its children (an image file would pass
  // the limit), each standalone with the shim and counted as such.
  std::string out = dir.file("run.jsonl");
  ProgramOptions options;
  options.env = clean_env();
  ProgramResult run =
      run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", out, "--", "/usr/bin/prlimit",
                   "--fsize=100000", "/bin/sh", "-c", hello + " a; " + hello + " b"},
                  options);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "hello from a\nhello from b\n");
  EXPECT_EQ(run.err, "note\nnote\n");  // no process said to run without the shim
  RecordFile f = read_records(out);
  std::set<int64_t> pids;
  size_t hellos = 0;
  for (const ProcessRecord& p : f.processes) {
    pids.insert(p.pid);
    if (p.exe == hello && p.end == "exit" && p.written_by == "process") ++hellos;
  }
  EXPECT_EQ(hellos, 2u) << slurp(out);
  ASSERT_EQ(f.trees.size(), 1u) << slurp(out);
  EXPECT_EQ(f.trees[0].processes, pids.size()) << slurp(out);
  EXPECT_EQ(f.trees[0].processes_without_shim, 0u) << slurp(out);

  // One killed while standalone: the run records it, its counts unknown.
  std::string killed = dir.file("killed.jsonl");
  run = run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", killed, "--test", "t", "--op", "kill",
                     "--", "/usr/bin/prlimit", "--fsize=100000", "/bin/sh", "-c",
                     "sleep 30 & sleep 0.3; kill -9 $!; wait"},
                    options);
  EXPECT_EQ(run.status, 0) << run.err;
  f = read_records(killed);
  size_t by_sampler = 0;
  for (const ProcessRecord& p : f.processes) {
    if (p.written_by != "sampler") continue;
    ++by_sampler;
    EXPECT_EQ(p.end, "killed");
    EXPECT_FALSE(p.counted);
  }
  EXPECT_EQ(by_sampler, 1u) << slurp(killed);
  ProgramResult table = run_program({ACCOUNT_CLI_PATH, "report", killed}, options);
  EXPECT_NE(table.out.find("\u2020 t/kill: 1 of 3 processes ran without the shim"),
            std::string::npos)
      << table.out;
}

// A program that holds every descriptor its soft limit allows (one that
// tests its own EMFILE handling; git's tests under `ulimit -n 32`) still gets
// its record, and says nothing it would not say without the shim: the end's
// files (status, io, the output) get room from the hard limit for a moment,
// and an exec'ing image's next program sees the soft limit as it was. Before,
// the record was lost and "cannot write the record ... Too many open files"
// went to the program's stderr. At the hard limit there is no room to give:
// an image that has lived an interval hands the record to its sampler
// process; one without a sampler says the loss, as any other.
TEST(RobustnessFaults, AProgramThatUsesEveryDescriptorKeepsItsRecord) {
  TempDir dir;
  std::string program = robustness_program("every_descriptor");
  ShimRun run = run_with_shim(dir, {"/usr/bin/prlimit", "--nofile=64:4096", program});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.result.err, "");
  long long opened = value_after(run.result.out, "opened");
  EXPECT_GT(opened, 50) << run.result.out;  // 64 less the ones inherited open
  std::vector<ProcessRecord> mine = records_of(run.records, "every_descriptor");
  ASSERT_EQ(mine.size(), 1u) << dump(run);
  EXPECT_EQ(mine[0].end, "exit");
  EXPECT_EQ(mine[0].exit_code, 0);
  EXPECT_EQ(mine[0].malloc_bytes, 1000u);
  EXPECT_EQ(mine[0].malloc_calls, 1u);
  EXPECT_GT(mine[0].vm_peak_bytes, 0u);  // status could be read too
  EXPECT_TRUE(mine[0].rchar.has_value());

  // Through an exec: the record of every_descriptor's image, sh's, and sh
  // prints the soft limit it was given, not the raised one.
  TempDir dir2;
  run = run_with_shim(dir2, {"/usr/bin/prlimit", "--nofile=64:4096", program, "exec"});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.result.err, "");
  EXPECT_NE(run.result.out.find("\n64\n"), std::string::npos) << run.result.out;
  mine = records_of(run.records, "every_descriptor");
  ASSERT_EQ(mine.size(), 1u) << dump(run);
  EXPECT_EQ(mine[0].end, "exec");
  EXPECT_EQ(mine[0].malloc_bytes, 1000u);
  std::vector<ProcessRecord> sh = records_of(run.records, "sh");
  ASSERT_EQ(sh.size(), 1u) << dump(run);
  EXPECT_EQ(sh[0].end, "exit");
  EXPECT_EQ(sh[0].pid, mine[0].pid);

  // Soft and hard limit alike: nothing to give. An image that has lived an
  // interval hands its record to its sampler process, which has descriptors
  // of its own: the same record, written by the sampler, and nothing said.
  TempDir dir3;
  // Two records: prlimit's exec, and the one the sampler writes once the
  // process is gone.
  run = run_with_shim(dir3, {"/usr/bin/prlimit", "--nofile=64:64", program, "linger"}, {}, 2);
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.result.err, "");
  expect_exit_written_by_sampler(run, "every_descriptor", 0);
  EXPECT_EQ(records_of(run.records, "every_descriptor").at(0).malloc_calls, 1u);

  // Without a sampler (sampling off) the loss is said.
  TempDir dir4;
  run = run_with_shim(dir4, {"/usr/bin/prlimit", "--nofile=64:64", program},
                      {{"ACCOUNT_SAMPLE_MS", "0"}});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_TRUE(records_of(run.records, "every_descriptor").empty()) << dump(run);
  EXPECT_NE(run.result.err.find("Too many open files"), std::string::npos) << run.result.err;
}

// A program that puts itself in a seccomp sandbox and then returns (sshd's
// and vsftpd's privilege-separated children) ends as it would without the
// shim: the sandbox here kills on getrusage, prlimit64 and flock, which the
// shim's end used to make, so the program died of SIGSYS (status 159 from a
// shell) instead of returning 3. In the sandbox the image makes no system
// call of its own; its record is written by the sampler that watches it,
// with its counts (malloc after the sandbox included) and the end it left
// in memory, also when its parent reaped it before the sampler looked.
TEST(RobustnessFaults, AProgramInASeccompSandboxEndsAsWithoutTheShim) {
  std::string program = robustness_program("sandboxed_exit");
  for (const char* how : {"prctl", "seccomp"}) {
    SCOPED_TRACE(how);
    TempDir dir;
    ShimRun run = run_with_shim(dir, {program, how, "3"}, {}, 1);
    EXPECT_EQ(run.result.status, 3) << dump(run);
    EXPECT_EQ(run.result.out, "sandboxed\n");
    EXPECT_EQ(run.result.err, "");
    expect_exit_written_by_sampler(run, "sandboxed_exit", 3);
    std::vector<ProcessRecord> mine = records_of(run.records, "sandboxed_exit");
    EXPECT_EQ(mine.at(0).free_calls, 1u);

    // Under account run, a grandchild: sh reaps it before the tree sampler's
    // next tick, so only the end it left says how it ended.
    std::string out = dir.file("run.jsonl");
    ProgramOptions options;
    options.env = clean_env();
    ProgramResult r = run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", out, "--", "/bin/sh", "-c",
                                   program + " " + how + " 3; echo status=$?"},
                                  options);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "sandboxed\nstatus=3\n");
    EXPECT_EQ(r.err, "");
    RecordFile f = read_records(out);
    mine = records_of(f, "sandboxed_exit");
    ASSERT_EQ(mine.size(), 1u) << slurp(out);
    EXPECT_EQ(mine[0].end, "exit") << slurp(out);
    EXPECT_EQ(mine[0].exit_code, 3);
    EXPECT_EQ(mine[0].malloc_bytes, 1000u);
    ASSERT_EQ(f.trees.size(), 1u);
    EXPECT_EQ(f.trees[0].processes_without_shim, 0u);
  }

  // `program CODE` returns CODE and writes its one record itself: its malloc bytes.
  auto own_record_malloc_bytes = [](const char* program, int code) -> uint64_t {
    TempDir dir;
    ShimRun run = run_with_shim(dir, {robustness_program(program), std::to_string(code)});
    EXPECT_EQ(run.result.status, code) << dump(run);
    EXPECT_EQ(run.result.err, "");
    if (run.records.processes.size() != 1) {
      ADD_FAILURE() << "one record expected: " << dump(run);
      return 0;
    }
    EXPECT_EQ(run.records.processes[0].written_by, "process");
    EXPECT_EQ(run.records.processes[0].exit_code, code);
    return run.records.processes[0].malloc_bytes;
  };
  // A vfork child's sandbox is not its parent's, whose memory it borrows:
  // the parent writes its own record as ever.
  EXPECT_EQ(own_record_malloc_bytes("vfork_sandbox", 4), 1000u);
  // A sandbox the kernel refused (TSYNC, with a thread in a sandbox of its
  // own made by a raw system call: seccomp returns that thread's id) is
  // none: the image writes its own record, with its 1000 bytes and what
  // pthread_create allocated for the thread.
  EXPECT_GE(own_record_malloc_bytes("tsync_refused", 9), 1000u);
}

// A child made without fork() runs no fork handlers: glibc's _Fork and
// clone, and the clone, clone3 and fork system calls. Each child counted
// into its parent's figures and left no record of its own; now each is an
// image of its own, exactly as a fork's child (the control).
TEST(RobustnessFaults, AChildMadeWithoutForkIsAnImageOfItsOwn) {
  std::string program = robustness_program("fork_like");
  for (const char* how : {"fork", "_Fork", "syscall-clone", "syscall-clone3", "syscall-fork",
                          "clone", "clone-exit", "clone-4k"}) {
    SCOPED_TRACE(how);
    TempDir dir;
    ShimRun run = run_with_shim(dir, {program, how, "6"}, {}, 2);
    EXPECT_EQ(run.result.status, 0) << dump(run);
    EXPECT_EQ(run.result.err, "");
    std::vector<ProcessRecord> mine = records_of(run.records, "fork_like");
    ASSERT_EQ(mine.size(), 2u) << dump(run);
    const ProcessRecord& child = mine[0].ppid == mine[1].pid ? mine[0] : mine[1];
    const ProcessRecord& parent = &child == &mine[0] ? mine[1] : mine[0];
    ASSERT_EQ(child.ppid, parent.pid) << dump(run);
    EXPECT_EQ(child.end, "exit");
    EXPECT_EQ(child.exit_code, 6);
    EXPECT_EQ(child.malloc_calls, 700u);
    EXPECT_EQ(child.malloc_bytes, 70000u);
    EXPECT_EQ(child.free_calls, 700u);
    EXPECT_EQ(child.copied_calls, 300u);
    EXPECT_EQ(child.copied_bytes, 15000u);
    EXPECT_EQ(parent.exit_code, 0);
    EXPECT_EQ(parent.malloc_calls, 10u);
    EXPECT_EQ(parent.malloc_bytes, 10000u);
    EXPECT_EQ(parent.copied_calls, 0u);
  }

  // Under account run: both images have the shim and their own records.
  for (const char* how : {"_Fork", "clone"}) {
    SCOPED_TRACE(how);
    TempDir dir;
    std::string out = dir.file("run.jsonl");
    ProgramOptions options;
    options.env = clean_env();
    ProgramResult r =
        run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", out, "--", program, how, "6"}, options);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    RecordFile f = read_records(out);
    std::vector<ProcessRecord> mine = records_of(f, "fork_like");
    ASSERT_EQ(mine.size(), 2u) << slurp(out);
    uint64_t calls[2] = {mine[0].malloc_calls, mine[1].malloc_calls};
    std::sort(calls, calls + 2);
    EXPECT_EQ(calls[0], 10u);
    EXPECT_EQ(calls[1], 700u);
    ASSERT_EQ(f.trees.size(), 1u);
    EXPECT_EQ(f.trees[0].processes_without_shim, 0u);
  }
}

// A child subreaper (PR_SET_CHILD_SUBREAPER: tini, dumb-init, process
// supervisors) adopts every orphan below it. The image's sampler was one: the
// subreaper's wait() returned it, and as it lives as long as its target, a
// program that reaps until no child is left waited forever. Now a
// subreaper's sampler is its child with no exit signal, which wait() does
// not see, and an exec ends and reaps it. The samplers of its children, which
// outlive them, still come back to it when they end ("lasting").
TEST(RobustnessFaults, ASubreaperNeverWaitsForItsOwnSampler) {
  // Each mode ends with status 0 once wait() finds no child left, and
  // `records` images (the subreaper, after an exec also before it, and 3 children).
  auto run_mode = [](const TempDir& dir, const char* mode, size_t records) {
    ShimRun run = run_with_shim(dir, {robustness_program("subreaper"), mode},
                                {{"ACCOUNT_SAMPLE_MS", "5"}}, records);
    EXPECT_EQ(run.result.status, 0) << dump(run);
    EXPECT_EQ(run.result.err, "");
    EXPECT_EQ(run.records.processes.size(), records) << dump(run);
    return run;
  };
  TempDir quick_dir;
  ShimRun quick = run_mode(quick_dir, "quick", 4);
  EXPECT_EQ(quick.result.out, "own=3 strangers=0\n");
  if (!quick.records.processes.empty()) {
    const ProcessRecord& reaper = quick.records.processes.back();
    EXPECT_EQ(reaper.written_by, "process");
    EXPECT_GE(reaper.samples, 1u) << "its sampler ran";
  }

  TempDir lasting_dir;
  ShimRun lasting = run_mode(lasting_dir, "lasting", 4);
  EXPECT_EQ(lasting.result.out.rfind("own=3 strangers=", 0), 0u) << lasting.result.out;
  EXPECT_LE(value_after(lasting.result.out, "strangers"), 3) << "one sampler a child at most";

  // Set through syscall(), kept across the exec: the image after it asks.
  // Its one child at once is the starter of its new sampler.
  TempDir exec_dir;
  ShimRun exec = run_mode(exec_dir, "exec", 5);
  EXPECT_EQ(exec.result.out, "children=1\nown=3 strangers=0\n");
  if (exec.records.processes.size() == 5) {
    EXPECT_EQ(exec.records.processes[0].end, "exec");
    EXPECT_GE(exec.records.processes[0].samples, 1u);
    EXPECT_GE(exec.records.processes.back().samples, 1u);
  }
}

}  // namespace
}  // namespace account::testing
