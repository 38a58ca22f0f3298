// `account run -o F --test T --op O -- COMMAND`: labels in every record, the
// command's exit status (128+signal), one tree record.
#include <gtest/gtest.h>

#include "shim_run.h"

namespace account::testing {
namespace {

ProgramResult account_run(const TempDir& dir, const std::vector<std::string>& command,
                          std::vector<std::string> options = {}) {
  std::vector<std::string> argv{ACCOUNT_CLI_PATH, "run", "-o",   dir.file("run.jsonl"),
                                "--test",         "T1",  "--op", "add files"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  ProgramOptions o;
  o.env = clean_env();
  o.timeout_s = 60;
  return run_program(argv, o);
}

TEST(AccountRun, LabelsInEveryRecordExitStatusAndTreeRecord) {
  TempDir dir;
  std::string script = test_program("processes") + " fork_exec " + test_program("alloc_pattern") +
                       " >/dev/null; " + test_program("hello") + " run 0; exit 3";
  ProgramResult r = account_run(dir, {"/bin/sh", "-c", script}, {"-q"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.out, "hello from run\n");
  EXPECT_EQ(r.err, "note\n");  // -q: no summary
  RecordFile f = read_records(dir.file("run.jsonl"));
  ASSERT_TRUE(f.bad_lines.empty()) << f.bad_lines.front();
  // sh, processes, its forked child (exec) + alloc_pattern, hello.
  ASSERT_EQ(f.processes.size(), 5u) << slurp(dir.file("run.jsonl"));
  for (const auto& p : f.processes) {
    EXPECT_EQ(p.test, "T1");
    EXPECT_EQ(p.op, "add files");
  }
  auto alloc = records_of(f, "/alloc_pattern");
  ASSERT_EQ(alloc.size(), 1u);
  EXPECT_EQ(alloc[0].malloc_calls, 13u);
  ASSERT_EQ(f.trees.size(), 1u);
  EXPECT_EQ(f.trees[0].test, "T1");
  EXPECT_EQ(f.trees[0].op, "add files");
  EXPECT_EQ(f.trees[0].exit_code, 3);
  EXPECT_FALSE(f.trees[0].signal.has_value());
  EXPECT_GE(f.trees[0].processes, 1u);
  EXPECT_LE(f.trees[0].start_ns, f.trees[0].end_ns);
  // Under account run too (the images copy their identity into image files):
  // every record, the tree record included, names this machine.
  std::string host = uname_n();
  ASSERT_FALSE(host.empty());
  EXPECT_EQ(f.trees[0].host, host);
  for (const auto& p : f.processes) EXPECT_EQ(p.host, host) << p.pid;
}

// A tree record is composed in 4 KiB first, and again in room for the
// longest it can be when that overflows: a command line of 6,000 bytes and
// 3,000 more that are escaped six bytes each (\u0001) is whole in it.
TEST(AccountRun, TreeRecordOfALongCommandIsWhole) {
  TempDir dir;
  std::vector<std::string> command = {
      "/bin/sh", "-c", "exit 0", "sh", std::string(6000, 'a'), std::string(3000, '\x01')};
  ProgramResult r = account_run(dir, command, {"-q"});
  ASSERT_EQ(r.status, 0) << r.err;
  RecordFile f = read_records(dir.file("run.jsonl"));
  ASSERT_TRUE(f.bad_lines.empty()) << f.bad_lines.front();
  ASSERT_EQ(f.trees.size(), 1u);
  EXPECT_TRUE(f.trees[0].command == command);
  EXPECT_EQ(f.trees[0].exit_code, 0);
}

TEST(AccountRun, SummaryLineUnlessQuiet) {
  TempDir dir;
  ProgramResult r = account_run(dir, {test_program("hello"), "sum", "0"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "hello from sum\n");
  const std::string prefix = "note\naccount: T1 add files: 1 process, ";
  EXPECT_EQ(r.err.compare(0, prefix.size(), prefix), 0) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
}

// `account run` keeps its command's zombie for the sampler, so the cause of
// death must be exact every time: ten runs.
TEST(AccountRun, SignalStatusAndSignalRecord) {
  for (int i = 0; i < 10; ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    TempDir dir;
    ProgramResult r = account_run(dir, {test_program("processes"), "signal", "15", "20"}, {"-q"});
    EXPECT_EQ(r.status, 128 + 15);
    RecordFile f = read_records(dir.file("run.jsonl"));
    ASSERT_EQ(f.processes.size(), 1u) << slurp(dir.file("run.jsonl"));
    EXPECT_EQ(f.processes[0].end, "signal");
    EXPECT_EQ(f.processes[0].signal, 15);
    EXPECT_EQ(f.processes[0].written_by, "sampler");
    EXPECT_EQ(f.processes[0].malloc_bytes, 11u);
    EXPECT_EQ(f.processes[0].test, "T1");
    ASSERT_EQ(f.trees.size(), 1u);
    EXPECT_EQ(f.trees[0].signal, 15);
    EXPECT_FALSE(f.trees[0].exit_code.has_value());
  }
}

TEST(AccountRun, SigkillStatusAndKilledRecord) {
  std::string host = uname_n();
  for (int i = 0; i < 10; ++i) {
    SCOPED_TRACE("run " + std::to_string(i));
    TempDir dir;
    ProgramResult r = account_run(dir, {test_program("processes"), "signal", "9", "20"}, {"-q"});
    EXPECT_EQ(r.status, 128 + 9);
    RecordFile f = read_records(dir.file("run.jsonl"));
    ASSERT_EQ(f.processes.size(), 1u) << slurp(dir.file("run.jsonl"));
    EXPECT_EQ(f.processes[0].end, "killed");
    EXPECT_EQ(f.processes[0].signal, 9);
    EXPECT_EQ(f.processes[0].host, host);  // written by the tree sampler
    ASSERT_EQ(f.trees.size(), 1u);
    EXPECT_EQ(f.trees[0].signal, 9);
  }
}

TEST(AccountRun, ExitCodeOfUnderscoreExitReturned) {
  TempDir dir;
  ProgramResult r = account_run(dir, {test_program("processes"), "_exit", "77"}, {"-q"});
  EXPECT_EQ(r.status, 77);
  RecordFile f = read_records(dir.file("run.jsonl"));
  ASSERT_EQ(f.processes.size(), 1u);
  EXPECT_EQ(f.processes[0].exit_code, 77);
  EXPECT_EQ(f.processes[0].written_by, "process");
  ASSERT_EQ(f.trees.size(), 1u);
  EXPECT_EQ(f.trees[0].exit_code, 77);
}

TEST(AccountRun, RecordsAppendedAcrossRuns) {
  TempDir dir;
  EXPECT_EQ(account_run(dir, {test_program("alloc_pattern")}, {"-q"}).status, 0);
  EXPECT_EQ(account_run(dir, {test_program("alloc_pattern")}, {"-q"}).status, 0);
  RecordFile f = read_records(dir.file("run.jsonl"));
  EXPECT_EQ(f.processes.size(), 2u);
  EXPECT_EQ(f.trees.size(), 2u);
  for (const auto& p : f.processes) EXPECT_EQ(p.malloc_calls, 13u);
}

}  // namespace
}  // namespace account::testing
