// Every option value of account run and account watch is checked before any
// work starts: one line naming the option and the valid range, exit status 1,
// and the command never started (issue 20). Also --prepare, and the probe of
// -o before the command starts.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "records.h"
#include "run_program.h"

namespace account::testing {
namespace {

namespace fs = std::filesystem;

std::string fmt_lost(size_t records, const std::string& path) {
  return "account: run: " + std::to_string(records) + " records lost, cannot write " + path +
         ": No space left on device (the command's exit status was 0)\n";
}

struct BadValue {
  std::vector<std::string> options;
  std::string message;
};

class RunRejects : public ::testing::TestWithParam<BadValue> {};

TEST_P(RunRejects, WithOneLineBeforeTheCommandStarts) {
  TempDir dir;
  std::string marker = dir.file("started");
  std::vector<std::string> argv = {ACCOUNT_CLI_PATH, "run", "-q"};
  argv.insert(argv.end(), GetParam().options.begin(), GetParam().options.end());
  argv.insert(argv.end(), {"--", "/usr/bin/touch", marker});
  ProgramOptions options;
  options.env["TMPDIR"] = dir.path();
  ProgramResult r = run_program(argv, options);
  EXPECT_EQ(r.err, "account: " + GetParam().message + "\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(fs::exists(marker));
  // Nothing was left in TMPDIR either (no temporary output, no image directory).
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

INSTANTIATE_TEST_SUITE_P(
    Values, RunRejects,
    ::testing::Values(
        BadValue{{"--repeat", "-1"}, "run: --repeat -1 is not 1-1000000"},
        BadValue{{"--repeat", "0"}, "run: --repeat 0 is not 1-1000000"},
        BadValue{{"--repeat", "1000001"}, "run: --repeat 1000001 is not 1-1000000"},
        BadValue{{"--repeat", "3x"}, "run: --repeat 3x is not 1-1000000"},
        BadValue{{"--interval", "-5"}, "run: --interval -5 is not 0-1000 ms"},
        BadValue{{"--interval", "1001"}, "run: --interval 1001 is not 0-1000 ms"},
        BadValue{{"--timeout", "-3"}, "run: --timeout -3 is not 0.001-1000000 s"},
        BadValue{{"--timeout", "0"}, "run: --timeout 0 is not 0.001-1000000 s"},
        BadValue{{"--timeout", "nan"}, "run: --timeout nan is not 0.001-1000000 s"},
        BadValue{{"--kill-after", "-1"}, "run: --kill-after -1 is not 0-3600 s"},
        BadValue{{"--kill-after", "3601"}, "run: --kill-after 3601 is not 0-3600 s"},
        BadValue{{"--backtrace-min", "0"},
                 "run: --backtrace-min 0 is not a size of 1 byte or more, such as 4096, 64K, "
                 "10M or 1G"},
        BadValue{{"--backtrace-min", "-1M"},
                 "run: --backtrace-min -1M is not a size of 1 byte or more, such as 4096, 64K, "
                 "10M or 1G"},
        BadValue{{"--prepare", ""}, "run: --prepare needs a command for sh -c"},
        BadValue{{"-o", "/dev/full"}, "run: cannot write -o /dev/full: No space left on device"},
        // Issue 33 point 7: a label the shim would cut, and an output the shim would
        // split per process, are refused before the command starts.
        BadValue{{"--test", std::string(1024, 't')},
                 "run: --test is 1024 bytes long; a label holds at most 1023"},
        BadValue{{"--op", std::string(5000, 'o')},
                 "run: --op is 5000 bytes long; a label holds at most 1023"},
        BadValue{{"-o", "x-%p.jsonl"},
                 "run: -o x-%p.jsonl: '%' is not allowed in account run's output (its records "
                 "must share one file); ACCOUNT_OUTPUT=...%p is the shim's own"}));

// The longest label the shim keeps is taken whole, in every record and the tree's.
TEST(RunLabels, TheLongestLabelIsKeptWholeInEveryRecord) {
  TempDir dir;
  std::string test(1023, 't'), out = dir.file("r.jsonl");
  ProgramResult r = run_program({ACCOUNT_CLI_PATH, "run", "-q", "--test", test, "--op", "o", "-o",
                                 out, "--", "/bin/sh", "-c", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::ifstream in(out);
  std::string line;
  int records = 0;
  while (std::getline(in, line)) {
    ++records;
    EXPECT_NE(line.find("\"test\":\"" + test + "\""), std::string::npos) << line.substr(0, 200);
  }
  EXPECT_GE(records, 2);  // the shell's record and the tree record at least
}

class WatchRejects : public ::testing::TestWithParam<BadValue> {};

// The watched process is this test's own child, alive throughout: a value
// that were taken would start a watch of it (and the test would time out).
TEST_P(WatchRejects, WithOneLine) {
  pid_t child = fork();
  if (child == 0) {
    pause();
    _exit(0);
  }
  std::vector<std::string> argv = {ACCOUNT_CLI_PATH, "watch"};
  for (std::string a : GetParam().options) argv.push_back(a == "CHILD" ? std::to_string(child) : a);
  ProgramOptions options;
  options.timeout_s = 20;
  ProgramResult r = run_program(argv, options);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_EQ(r.err, "account: " + GetParam().message + "\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(r.timed_out);
}

INSTANTIATE_TEST_SUITE_P(
    Values, WatchRejects,
    ::testing::Values(
        BadValue{{"--pid", "-3"}, "watch: --pid -3 is not 1-4194304"},
        BadValue{{"--pid", "0"}, "watch: --pid 0 is not 1-4194304"},
        BadValue{{"--pid", "CHILD", "--interval", "-5"}, "watch: --interval -5 is not 1-1000 ms"},
        BadValue{{"--pid", "CHILD", "--interval", "0"}, "watch: --interval 0 is not 1-1000 ms"},
        BadValue{{"--pid", "CHILD", "--timeline-points", "-1"},
                 "watch: --timeline-points -1 is not 16-65536"},
        BadValue{{"--pid", "CHILD", "--timeline-points", "15"},
                 "watch: --timeline-points 15 is not 16-65536"},
        BadValue{{"--pid", "CHILD", "-o", "/dev/full"},
                 "watch: cannot write -o /dev/full: No space left on device"}));

// The probe of -o leaves a file as it was: records already in it stay, and
// nothing is added but the run's own records.
TEST(RunOutput, ProbeLeavesTheFileAsItWas) {
  TempDir dir;
  std::string path = dir.file("r.jsonl");
  ProgramResult first = run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", path, "--", "/bin/true"});
  ASSERT_EQ(first.status, 0) << first.err;
  std::string before;
  {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    before = s.str();
  }
  ProgramResult second =
      run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", path, "--", "/bin/true"});
  ASSERT_EQ(second.status, 0) << second.err;
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  ASSERT_GT(s.str().size(), before.size());
  EXPECT_EQ(s.str().substr(0, before.size()), before);
  RecordFile f = read_records(path);
  EXPECT_TRUE(f.bad_lines.empty());
  EXPECT_EQ(f.trees.size(), 2u);
  EXPECT_EQ(f.processes.size(), 2u);
}

// The output passes the probe, then fills up during the run (the command
// fills its small tmpfs): every record is lost, account run says how many in
// one line, with no summary of figures it does not have (the shim's images
// say nothing: the run speaks for them), and
// returns 125, not the command's 0. The tmpfs is mounted in a mount namespace
// of its own (unshare; a user namespace too when not root), gone with it. How
// many records the command makes is read from the same run to a roomy file.
TEST(RunOutput, RecordsLostToAFullDiskAreCountedAndGiveStatus125) {
  TempDir dir;
  std::string small = dir.file("small");
  fs::create_directory(small);
  std::string account = std::string("'") + ACCOUNT_CLI_PATH + "'";
  std::string command = "/bin/sh -c 'head -c 1M /dev/zero > " + small + "/fill 2>/dev/null; true'";
  std::string script = "set -e\n";
  script += "mount -t tmpfs -o size=128k tmpfs " + small + "\n";
  script += "status=0\n";
  script += account + " run -o " + small + "/r.jsonl -- " + command + " || status=$?\n";
  script += "echo status=$status\n";
  script += "test -f " + small + "/fill && echo filled\n";
  script += "echo bytes=$(wc -c < " + small + "/r.jsonl)\n";
  script += "rm " + small + "/fill\n";
  script += account + " run -q -o " + dir.file("roomy.jsonl") + " -- " + command + "\n";
  script += "echo roomy=$?\n";
  std::vector<std::string> argv = {"/usr/bin/unshare", "--mount", "--propagation", "private"};
  if (geteuid() != 0) argv.insert(argv.begin() + 1, {"--user", "--map-root-user"});
  argv.insert(argv.end(), {"/bin/sh", "-c", script});
  ProgramResult r = run_program(argv);
  ASSERT_NE(r.out.find("roomy=0\n"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("filled\n"), std::string::npos) << r.out;  // the command ran
  EXPECT_NE(r.out.find("status=125\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bytes=0\n"), std::string::npos) << r.out;
  // The roomy run's records: the shell's and its children's, and the tree record.
  RecordFile roomy = read_records(dir.file("roomy.jsonl"));
  EXPECT_TRUE(roomy.bad_lines.empty());
  ASSERT_EQ(roomy.trees.size(), 1u);
  size_t records = roomy.processes.size() + roomy.trees.size();
  ASSERT_GE(records, 3u);
  EXPECT_EQ(r.err, fmt_lost(records, small + "/r.jsonl"));
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A command that ends before the tree sampler's first look is still one
// process of its tree: its image file says it was there.
TEST(RunProcesses, ACommandShorterThanATickIsCounted) {
  TempDir dir;
  std::string path = dir.file("r.jsonl");
  // One in five of these ended unseen by the first tick when only ticks counted.
  ProgramResult r = run_program(
      {ACCOUNT_CLI_PATH, "run", "-q", "--repeat", "40", "-o", path, "--", "/bin/sh", "-c", "true"});
  ASSERT_EQ(r.status, 0) << r.err;
  RecordFile f = read_records(path);
  ASSERT_EQ(f.trees.size(), 40u);
  size_t uncounted = 0;
  for (const TreeRecord& t : f.trees) uncounted += t.processes != 1;
  EXPECT_EQ(uncounted, 0u);
  EXPECT_EQ(f.processes.size(), 40u);
}

TEST(RunPrepare, RunsBeforeEachRepetitionUnaccounted) {
  TempDir dir;
  std::string path = dir.file("r.jsonl"), log = dir.file("log");
  // The prepare appends its environment's ACCOUNT_ variables and LD_PRELOAD
  // after its marker line: there must be none.
  ProgramResult r = run_program(
      {ACCOUNT_CLI_PATH, "run", "-q", "--repeat", "3", "-o", path, "--prepare",
       "echo x >> " + log + "; env | grep -E '^(ACCOUNT_|LD_PRELOAD=)' >> " + log + "; true", "--",
       "/bin/sh", "-c", "echo y >> " + log});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines_of(log), (std::vector<std::string>{"x", "y", "x", "y", "x", "y"}));
  RecordFile f = read_records(path);
  EXPECT_TRUE(f.bad_lines.empty());
  ASSERT_EQ(f.trees.size(), 3u);
  for (const TreeRecord& t : f.trees) EXPECT_EQ(t.processes, 1u);
  // Only the command's three shells were recorded, none of the prepare's.
  ASSERT_EQ(f.processes.size(), 3u);
  for (const ProcessRecord& p : f.processes) {
    ASSERT_EQ(p.argv.size(), 3u);
    EXPECT_EQ(p.argv[2], "echo y >> " + log);
  }
}

TEST(RunPrepare, AFailingPrepareStopsTheRun) {
  TempDir dir;
  std::string path = dir.file("r.jsonl"), marker = dir.file("started");
  ProgramResult r = run_program({ACCOUNT_CLI_PATH, "run", "-q", "--repeat", "3", "-o", path,
                                 "--prepare", "exit 3", "--", "/usr/bin/touch", marker});
  EXPECT_EQ(r.err, "account: run: --prepare 'exit 3' failed (exit 3)\n");
  EXPECT_EQ(r.status, 125);
  EXPECT_FALSE(fs::exists(marker));
  RecordFile f = read_records(path);
  EXPECT_TRUE(f.trees.empty());
  EXPECT_TRUE(f.processes.empty());
}

// account watch writes its numbers as the shim does: fixed six decimals for
// seconds, plain integers, never an exponent (0E0, 1.51E0).
TEST(WatchRecord, NumbersAreWrittenAsTheShimWritesThem) {
  pid_t child = fork();
  if (child == 0) {
    execl("/bin/sleep", "sleep", "0.3", static_cast<char*>(nullptr));
    _exit(127);
  }
  ProgramResult r =
      run_program({ACCOUNT_CLI_PATH, "watch", "--pid", std::to_string(child), "--interval", "5"});
  waitpid(child, nullptr, 0);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_FALSE(r.out.empty());
  const std::string& line = r.out;
  EXPECT_TRUE(std::regex_search(line, std::regex(R"("cpu_user_s":[0-9]+\.[0-9]{6}[,}])"))) << line;
  EXPECT_TRUE(std::regex_search(line, std::regex(R"("cpu_sys_s":[0-9]+\.[0-9]{6}[,}])"))) << line;
  EXPECT_TRUE(std::regex_search(line, std::regex(R"("vm_peak_bytes":[1-9][0-9]*[,}])"))) << line;
  // No number anywhere in an exponent form, outside strings (exe, argv).
  std::string numbers = std::regex_replace(line, std::regex(R"("([^"\\]|\\.)*")"), "\"\"");
  EXPECT_FALSE(std::regex_search(numbers, std::regex(R"([0-9.][eE][-+]?[0-9])"))) << line;
  EXPECT_FALSE(std::regex_search(numbers, std::regex(R"(:-?[0-9]+\.[0-9]{0,5}[,}\]])"))) << line;
  RecordFile f;
  {
    TempDir dir;
    std::ofstream(dir.file("w.jsonl")) << line;
    f = read_records(dir.file("w.jsonl"));
  }
  EXPECT_TRUE(f.bad_lines.empty());
  ASSERT_EQ(f.processes.size(), 1u);
  EXPECT_EQ(f.processes[0].pid, child);
}

}  // namespace
}  // namespace account::testing
