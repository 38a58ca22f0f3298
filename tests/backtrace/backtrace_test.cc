// Large-allocation backtraces end to end (issue 5): the shim's groups in the
// record, and account report --backtraces naming the program's own functions.
// alloc_paths allocates 1 MiB (small_once), 20 MiB (big_once) and 20 MiB twice
// from one call site (big_twice); the threshold is 10M.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "backtrace_record.h"
#include "records.h"
#include "run_program.h"

namespace account::testing {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

std::string program(const std::string& variant) {
  return std::string(BACKTRACE_PROGRAMS_DIR) + "/alloc_paths_" + variant;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<ProcessBacktraces> backtraces_of(const std::string& path) {
  std::vector<ProcessBacktraces> out;
  for (const std::string& line : lines_of(path)) {
    std::string reason;
    auto p = parse_backtraces(line, &reason);
    EXPECT_EQ(reason, "") << line;
    if (p) out.push_back(std::move(*p));
  }
  return out;
}

ProgramResult run_traced(const std::vector<std::string>& argv, const std::string& output,
                         const std::string& threshold = "10M",
                         std::map<std::string, std::optional<std::string>> env = {}) {
  ProgramOptions o;
  o.preload = true;
  o.env = std::move(env);
  o.env["ACCOUNT_OUTPUT"] = output;
  o.env["ACCOUNT_BACKTRACE_MIN"] = threshold;
  return run_program(argv, o);
}

std::string report(const std::string& records) {
  ProgramResult r = run_program({ACCOUNT_CLI_PATH, "report", "--backtraces", records});
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

// The group's frames as the report prints them: the block under its heading.
std::string group_block(const std::string& text, const std::string& heading) {
  size_t at = text.find(heading);
  if (at == std::string::npos) return "";
  size_t end = text.find("\n\n", at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// Exactly two groups: big_twice (2 x 20 MiB) then big_once (1 x 20 MiB).
void expect_two_groups(const ProcessBacktraces& p, uint64_t per_thread_calls = 1) {
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0].count, 2 * per_thread_calls);
  EXPECT_EQ(p.groups[0].bytes, 2 * per_thread_calls * 20 * kMiB);
  EXPECT_EQ(p.groups[0].largest, 20 * kMiB);
  EXPECT_EQ(p.groups[1].count, per_thread_calls);
  EXPECT_EQ(p.groups[1].bytes, per_thread_calls * 20 * kMiB);
  EXPECT_EQ(p.groups[1].largest, 20 * kMiB);
  EXPECT_FALSE(p.other);  // the 1 MiB allocation is nowhere
  EXPECT_EQ(p.threshold, 10 * kMiB);
  EXPECT_EQ(p.depth, 32u);
}

void expect_report_names_paths(const std::string& text, const std::string& variant) {
  std::string twice = group_block(text, "2 allocations, 40.00 MiB, largest 20.00 MiB");
  std::string once = group_block(text, "1 allocation, 20.00 MiB, largest 20.00 MiB");
  EXPECT_NE(twice.find("alloc_paths::allocate(unsigned long) (alloc_paths_" + variant + "+0x"),
            std::string::npos)
      << text;
  EXPECT_NE(twice.find("alloc_paths::big_twice() (alloc_paths_" + variant + "+0x"),
            std::string::npos)
      << text;
  EXPECT_NE(twice.find("alloc_paths.cc:"), std::string::npos) << text;
  EXPECT_EQ(twice.find("big_once"), std::string::npos) << text;
  EXPECT_NE(once.find("alloc_paths::big_once() (alloc_paths_" + variant + "+0x"), std::string::npos)
      << text;
  EXPECT_EQ(once.find("big_twice"), std::string::npos) << text;
  EXPECT_EQ(text.find("small_once"), std::string::npos) << text;
  EXPECT_EQ(text.find("1.00 MiB"), std::string::npos) << text;
}

class BacktracePaths : public ::testing::TestWithParam<std::string> {};

TEST_P(BacktracePaths, TwoGroupsWithExactCountsAndNamedFunctions) {
  TempDir dir;
  ProgramResult r = run_traced({program(GetParam()), "paths"}, dir.file("r.jsonl"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto processes = backtraces_of(dir.file("r.jsonl"));
  ASSERT_EQ(processes.size(), 1u);
  expect_two_groups(processes[0]);
  expect_report_names_paths(report(dir.file("r.jsonl")), GetParam());
}

TEST_P(BacktracePaths, EightThreadsCountExactly) {
  TempDir dir;
  ProgramResult r = run_traced({program(GetParam()), "threads"}, dir.file("r.jsonl"));
  ASSERT_EQ(r.status, 0) << r.err;
  auto processes = backtraces_of(dir.file("r.jsonl"));
  ASSERT_EQ(processes.size(), 1u);
  // Each thread's stack differs from main's only below thread_main: the same
  // two groups, eight times the calls.
  expect_two_groups(processes[0], 8);
  std::string text = report(dir.file("r.jsonl"));
  EXPECT_NE(text.find("16 allocations, 320.00 MiB, largest 20.00 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("8 allocations, 160.00 MiB, largest 20.00 MiB"), std::string::npos) << text;
  EXPECT_NE(text.find("alloc_paths::thread_main(void*)"), std::string::npos) << text;
  EXPECT_EQ(text.find("small_once"), std::string::npos) << text;
}

TEST_P(BacktracePaths, AForkChildHasGroupsOfItsOwn) {
  TempDir dir;
  ProgramResult r = run_traced({program(GetParam()), "fork"}, dir.file("r.jsonl"));
  ASSERT_EQ(r.status, 0) << r.err;
  RecordFile f = read_records(dir.file("r.jsonl"));
  ASSERT_EQ(f.processes.size(), 2u);
  auto processes = backtraces_of(dir.file("r.jsonl"));
  ASSERT_EQ(processes.size(), 2u);
  // The parent is the record whose pid is the other's ppid.
  int64_t parent_pid =
      f.processes[0].ppid == f.processes[1].pid ? f.processes[1].pid : f.processes[0].pid;
  const ProcessBacktraces* parent = nullptr;
  const ProcessBacktraces* child = nullptr;
  for (const ProcessBacktraces& p : processes) (p.pid == parent_pid ? parent : child) = &p;
  ASSERT_TRUE(parent && child);
  // The parent: big_twice before the fork (small_once after it is under 10M).
  ASSERT_EQ(parent->groups.size(), 1u);
  EXPECT_EQ(parent->groups[0].count, 2u);
  EXPECT_EQ(parent->groups[0].bytes, 40 * kMiB);
  // The child: only its own big_once, nothing inherited.
  ASSERT_EQ(child->groups.size(), 1u);
  EXPECT_EQ(child->groups[0].count, 1u);
  EXPECT_EQ(child->groups[0].bytes, 20 * kMiB);
  std::string text = report(dir.file("r.jsonl"));
  std::string child_part = text.substr(text.find("pid " + std::to_string(child->pid) + ":"));
  child_part = child_part.substr(0, child_part.find("  pid ", 1));
  EXPECT_NE(child_part.find("alloc_paths::big_once()"), std::string::npos) << text;
  EXPECT_EQ(child_part.find("big_twice"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(FramePointers, BacktracePaths, ::testing::Values("fp", "nofp"));

TEST(Backtrace, TheSamplerRecordsTheGroupsOfAKilledTarget) {
  TempDir dir;
  ProgramResult r = run_traced({program("nofp"), "kill"}, dir.file("r.jsonl"));
  EXPECT_EQ(r.status, 128 + 9);
  // The sampler leaves within one interval of the target's death.
  for (int i = 0; i < 200 && lines_of(dir.file("r.jsonl")).empty(); ++i) usleep(10000);
  RecordFile f = read_records(dir.file("r.jsonl"));
  ASSERT_EQ(f.processes.size(), 1u);
  EXPECT_EQ(f.processes[0].written_by, "sampler");
  auto processes = backtraces_of(dir.file("r.jsonl"));
  ASSERT_EQ(processes.size(), 1u);
  ASSERT_EQ(processes[0].groups.size(), 1u);
  EXPECT_EQ(processes[0].groups[0].count, 2u);
  EXPECT_NE(report(dir.file("r.jsonl")).find("alloc_paths::big_twice()"), std::string::npos);
}

TEST(Backtrace, OffMeansNoKeys) {
  TempDir dir;
  ProgramOptions o;
  o.preload = true;
  o.env["ACCOUNT_OUTPUT"] = dir.file("r.jsonl");
  o.env["ACCOUNT_BACKTRACE_MIN"] = std::nullopt;
  ASSERT_EQ(run_program({program("fp"), "paths"}, o).status, 0);
  auto lines = lines_of(dir.file("r.jsonl"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].find("\"backtrace"), std::string::npos) << lines[0];  // no key at all
  EXPECT_NE(lines[0].find("\"malloc_bytes\":"), std::string::npos);
  EXPECT_EQ(report(dir.file("r.jsonl")),
            "No backtraces in these records: run with ACCOUNT_BACKTRACE_MIN=SIZE "
            "(account run --backtrace-min SIZE).\n");
}

TEST(Backtrace, TheLogHasOneLinePerLargeAllocation) {
  TempDir dir;
  ProgramResult r = run_traced({program("fp"), "paths"}, dir.file("r.jsonl"), "10M",
                               {{"ACCOUNT_BACKTRACE_LOG", dir.file("big-%p.log")}});
  ASSERT_EQ(r.status, 0) << r.err;
  auto groups = backtraces_of(dir.file("r.jsonl"));
  ASSERT_EQ(groups.size(), 1u);
  std::string pid = std::to_string(groups[0].pid);
  auto lines = lines_of(dir.file("big-" + pid + ".log"));  // %p is the pid
  ASSERT_EQ(lines.size(), 3u);
  for (const std::string& line : lines) {
    EXPECT_EQ(line.rfind("{\"pid\":" + pid + ",\"tid\":", 0), 0u) << line;
    EXPECT_NE(line.find("\"size\":20971520,\"frames\":[\"0x"), std::string::npos) << line;
  }
  // The same stacks as the groups: big_once, then big_twice twice.
  auto frames_of = [](const std::string& line) { return line.substr(line.find("\"frames\"")); };
  EXPECT_NE(frames_of(lines[0]), frames_of(lines[1]));
  EXPECT_EQ(frames_of(lines[1]), frames_of(lines[2]));
}

TEST(Backtrace, AccountRunBacktraceMin) {
  TempDir dir;
  ProgramResult r =
      run_program({ACCOUNT_CLI_PATH, "run", "-q", "--test", "t", "--op", "paths", "-o",
                   dir.file("r.jsonl"), "--backtrace-min", "10M", "--", program("nofp"), "paths"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto processes = backtraces_of(dir.file("r.jsonl"));
  ASSERT_EQ(processes.size(), 1u);
  expect_two_groups(processes[0]);
  std::string text = report(dir.file("r.jsonl"));
  EXPECT_EQ(text.rfind("Test t, operation paths\n", 0), 0u) << text;
  expect_report_names_paths(text, "nofp");
}

// Re-entry: every allocation is captured (threshold 1 byte), the unwinder's own
// allocations included, and git behaves exactly as without the shim.
TEST(Backtrace, GitStatusWithAOneByteThresholdIsUnchanged) {
  TempDir repo;
  auto git = [&](std::vector<std::string> args, bool traced, const std::string& out = "") {
    args.insert(args.begin(), {"git", "-c", "user.name=t", "-c", "user.email=t@t"});
    ProgramOptions o;
    o.cwd = repo.path();
    o.env["LANG"] = "C";
    o.env["LC_ALL"] = "C";
    if (traced) {
      o.preload = true;
      o.env["ACCOUNT_OUTPUT"] = out;
      o.env["ACCOUNT_BACKTRACE_MIN"] = "1";
    }
    return run_program(args, o);
  };
  ASSERT_EQ(git({"init", "-q"}, false).status, 0);
  std::ofstream(repo.file("a.txt")) << "one\n";
  std::ofstream(repo.file("b.txt")) << "two\n";
  ASSERT_EQ(git({"add", "a.txt", "b.txt"}, false).status, 0);
  ASSERT_EQ(git({"commit", "-q", "-m", "first"}, false).status, 0);
  std::ofstream(repo.file("a.txt"), std::ios::app) << "changed\n";
  std::ofstream(repo.file("c.txt")) << "new\n";

  TempDir dir;
  ProgramResult plain = git({"status"}, false);
  ProgramResult traced = git({"status"}, true, dir.file("r.jsonl"));
  EXPECT_EQ(traced.status, plain.status);
  EXPECT_EQ(traced.out, plain.out);
  EXPECT_EQ(traced.err, plain.err);
  EXPECT_NE(plain.out.find("c.txt"), std::string::npos);
  RecordFile f = read_records(dir.file("r.jsonl"));
  ASSERT_EQ(f.processes.size(), 1u);
  auto processes = backtraces_of(dir.file("r.jsonl"));
  ASSERT_EQ(processes.size(), 1u);
  uint64_t captured = 0;
  for (const AllocationGroup& g : processes[0].groups) captured += g.count;
  if (processes[0].other) captured += processes[0].other->count;
  // Allocations before the unwinder was ready and those made while capturing
  // are counted but not captured: most are captured.
  EXPECT_GT(captured, f.processes[0].malloc_calls / 2);
  EXPECT_LE(captured, f.processes[0].malloc_calls);
  EXPECT_EQ(processes[0].groups.size(), 256u);  // the record's bound
  ASSERT_TRUE(processes[0].other);
  std::string text = report(dir.file("r.jsonl"));
  EXPECT_NE(text.find("(git+0x"), std::string::npos) << text.substr(0, 2000);
}

// The shim keeps the program's descriptors as they were, with the unwinder in
// use (libunwind would keep a pipe of its own open) and with 0 closed.
TEST(Backtrace, NoDescriptorIsAdded) {
  const std::string lister = "import os; print(sorted(os.listdir('/proc/self/fd')))";
  for (bool close_stdin : {false, true}) {
    std::vector<std::string> argv{"python3", "-c", lister};
    if (close_stdin) argv = {"sh", "-c", "exec 0<&-; exec python3 -c \"" + lister + "\""};
    ProgramResult plain = run_program(argv);
    TempDir dir;
    ProgramResult traced = run_traced(argv, dir.file("r.jsonl"), "1");
    ASSERT_EQ(plain.status, 0) << plain.err;
    EXPECT_EQ(traced.out, plain.out) << "stdin closed: " << close_stdin;
    EXPECT_EQ(traced.err, "");
    EXPECT_FALSE(backtraces_of(dir.file("r.jsonl")).empty());
  }
}

}  // namespace
}  // namespace account::testing
