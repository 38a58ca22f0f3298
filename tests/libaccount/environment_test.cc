// Bad ACCOUNT_* values and unwritable outputs: one exact warning line on
// stderr, the default used, the program's output and exit code unchanged.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "shim_run.h"

namespace account::testing {
namespace {

struct BadValue {
  const char* name;
  const char* value;
  const char* warning;  // without "account: " and the newline
};

class ShimBadEnvironment : public ::testing::TestWithParam<BadValue> {};

TEST_P(ShimBadEnvironment, OneWarningLineDefaultUsedProgramUnchanged) {
  const BadValue& bad = GetParam();
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("hello"), "env", "3"}, {{bad.name, bad.value}});
  EXPECT_EQ(run.result.status, 3);
  EXPECT_EQ(run.result.out, "hello from env\n");
  EXPECT_EQ(run.result.err, std::string("account: ") + bad.warning + "\nnote\n");
  // The run is still recorded, with the default in force.
  ASSERT_EQ(run.records.processes.size(), 1u) << slurp(run.output);
  EXPECT_EQ(run.records.processes[0].exit_code, 3);
  EXPECT_EQ(run.records.processes[0].argv,
            (std::vector<std::string>{test_program("hello"), "env", "3"}));
}

INSTANTIATE_TEST_SUITE_P(
    Values, ShimBadEnvironment,
    ::testing::Values(
        BadValue{"ACCOUNT_SAMPLE_MS", "abc",
                 "ACCOUNT_SAMPLE_MS=abc is not a whole number of milliseconds from 0 to 1000; "
                 "using 5"},
        BadValue{"ACCOUNT_SAMPLE_MS", "1001",
                 "ACCOUNT_SAMPLE_MS=1001 is not a whole number of milliseconds from 0 to 1000; "
                 "using 5"},
        BadValue{"ACCOUNT_SAMPLE_MS", "-1",
                 "ACCOUNT_SAMPLE_MS=-1 is not a whole number of milliseconds from 0 to 1000; "
                 "using 5"},
        BadValue{"ACCOUNT_SAMPLE_MS", "5ms",
                 "ACCOUNT_SAMPLE_MS=5ms is not a whole number of milliseconds from 0 to 1000; "
                 "using 5"},
        BadValue{"ACCOUNT_TIMELINE", "2", "ACCOUNT_TIMELINE=2 is not 0 or 1; using 0"},
        BadValue{"ACCOUNT_TIMELINE", "sometimes",
                 "ACCOUNT_TIMELINE=sometimes is not 0 or 1; using 0"},
        BadValue{"ACCOUNT_BACKTRACE_MIN", "10X",
                 "ACCOUNT_BACKTRACE_MIN=10X is not a size such as 4096, 64K, 10M or 1G; "
                 "backtraces stay off"},
        BadValue{"ACCOUNT_BACKTRACE_MIN", "big",
                 "ACCOUNT_BACKTRACE_MIN=big is not a size such as 4096, 64K, 10M or 1G; "
                 "backtraces stay off"},
        BadValue{"ACCOUNT_BACKTRACE_DEPTH", "0",
                 "ACCOUNT_BACKTRACE_DEPTH=0 is not a number of frames from 1 to 256; using 32"},
        BadValue{"ACCOUNT_BACKTRACE_DEPTH", "257",
                 "ACCOUNT_BACKTRACE_DEPTH=257 is not a number of frames from 1 to 256; using 32"},
        BadValue{"ACCOUNT_BACKTRACE_DEPTH", "deep",
                 "ACCOUNT_BACKTRACE_DEPTH=deep is not a number of frames from 1 to 256; using 32"},
        BadValue{"ACCOUNT_ARGV", "maybe", "ACCOUNT_ARGV=maybe is not 0 or 1; using 1"}),
    [](const auto& info) {
      std::string name = std::string(info.param.name).substr(8) + "_" + info.param.value;
      for (char& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return name + "_" + std::to_string(info.index);
    });

TEST(ShimEnvironment, GoodValuesGiveNoWarning) {
  const std::pair<const char*, const char*> good[] = {
      {"ACCOUNT_SAMPLE_MS", "0"},         {"ACCOUNT_SAMPLE_MS", "1000"},
      {"ACCOUNT_TIMELINE", "1"},          {"ACCOUNT_TIMELINE", "0"},
      {"ACCOUNT_BACKTRACE_MIN", "4096"},  {"ACCOUNT_BACKTRACE_MIN", "64K"},
      {"ACCOUNT_BACKTRACE_MIN", "10M"},   {"ACCOUNT_BACKTRACE_DEPTH", "1"},
      {"ACCOUNT_BACKTRACE_DEPTH", "256"}, {"ACCOUNT_ARGV", "1"}};
  for (const auto& [name, value] : good) {
    TempDir dir;
    ShimRun run = run_with_shim(dir, {test_program("hello"), "ok", "0"}, {{name, value}});
    EXPECT_EQ(run.result.err, "note\n") << name << "=" << value;
    EXPECT_EQ(run.result.out, "hello from ok\n");
    EXPECT_EQ(run.records.processes.size(), 1u) << name << "=" << value;
  }
}

TEST(ShimEnvironment, ArgvZeroLeavesArgvOut) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("hello"), "secret", "0"}, {{"ACCOUNT_ARGV", "0"}});
  EXPECT_EQ(run.result.err, "note\n");
  ASSERT_EQ(run.records.processes.size(), 1u);
  EXPECT_TRUE(run.records.processes[0].argv.empty());
  EXPECT_EQ(slurp(run.output).find("secret"), std::string::npos);
}

TEST(ShimEnvironment, LabelsCopiedIntoEveryRecordOfAForkingProgram) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("processes"), "fork_exec", test_program("hello")},
                              {{"ACCOUNT_TEST", "zero_small"}, {"ACCOUNT_OP", "add files"}});
  ASSERT_EQ(run.records.processes.size(), 3u) << slurp(run.output);
  for (const auto& r : run.records.processes) {
    EXPECT_EQ(r.test, "zero_small");
    EXPECT_EQ(r.op, "add files");
  }
}

TEST(ShimEnvironment, PercentPBecomesThePid) {
  TempDir dir;
  ShimRun run = run_with_shim(dir, {test_program("processes"), "fork"},
                              {{"ACCOUNT_OUTPUT", dir.file("rec-%p.jsonl")}});
  ASSERT_EQ(run.result.status, 0);
  for (const char* key : {"pid", "child"}) {
    long long pid = value_after(run.result.out, key);
    RecordFile f = read_records(dir.file("rec-" + std::to_string(pid) + ".jsonl"));
    ASSERT_EQ(f.processes.size(), 1u) << key;
    EXPECT_EQ(f.processes[0].pid, pid);
  }
}

TEST(ShimEnvironment, NoOutputGivesOneSummaryLinePerProcessOnStderr) {
  TempDir dir;
  ShimRun run =
      run_with_shim(dir, {test_program("hello"), "plain", "2"}, {{"ACCOUNT_OUTPUT", std::nullopt}});
  EXPECT_EQ(run.result.status, 2);
  EXPECT_EQ(run.result.out, "hello from plain\n");
  const std::string prefix = "note\naccount: hello[";
  ASSERT_EQ(run.result.err.compare(0, prefix.size(), prefix), 0) << run.result.err;
  EXPECT_NE(run.result.err.find("] exit 2: cpu "), std::string::npos) << run.result.err;
  EXPECT_EQ(std::count(run.result.err.begin(), run.result.err.end(), '\n'), 2);
}

void expect_unwritable(const std::string& path, const std::string& reason,
                       const std::vector<std::string>& args = {"hello", "x", "3"}) {
  TempDir dir;
  std::vector<std::string> argv{test_program(args[0])};
  argv.insert(argv.end(), args.begin() + 1, args.end());
  ProgramOptions plain;
  plain.env = clean_env();
  ProgramResult without = run_program(argv, plain);
  ShimRun run = run_with_shim(dir, argv, {{"ACCOUNT_OUTPUT", path}});
  EXPECT_EQ(run.result.status, without.status);
  if (args[0] == "processes")  // prints pids: the same lines, other numbers
    EXPECT_EQ(std::count(run.result.out.begin(), run.result.out.end(), '\n'), 2) << run.result.out;
  else
    EXPECT_EQ(run.result.out, without.out);
  EXPECT_EQ(run.result.err, "account: cannot write records to ACCOUNT_OUTPUT=" + path + ": " +
                                reason + "; this process is not recorded\n" + without.err);
}

TEST(ShimEnvironment, OutputUnderARegularFile) {
  TempDir dir;
  std::ofstream(dir.file("plain-file")) << "x";
  expect_unwritable(dir.file("plain-file") + "/records.jsonl", "Not a directory");
}

TEST(ShimEnvironment, OutputUnderProcVersion) {
  expect_unwritable("/proc/version/records.jsonl", "Not a directory");
}

TEST(ShimEnvironment, OutputIsADirectory) {
  TempDir dir;
  expect_unwritable(dir.path(), "Is a directory");
}

TEST(ShimEnvironment, OutputWritesFail) {
  expect_unwritable("/dev/full", "No space left on device");
}

// One warning for the image, not one more per forked child or at exit.
TEST(ShimEnvironment, UnwritableOutputWarnsOnceAcrossFork) {
  expect_unwritable("/dev/full", "No space left on device", {"processes", "fork"});
}

}  // namespace
}  // namespace account::testing
