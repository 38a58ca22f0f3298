// account compare --fail-on as CI meets it (issue 33): the real binary on
// records written here, its exit status and its lines on stderr. A gate fails
// closed: what it cannot judge is 5, a regression 3 (which wins), and
// --allow-unjudged passes what it cannot judge.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "run_program.h"

namespace account {
namespace {

using testing::ProgramResult;
using testing::TempDir;

// One operation's runs: their CPU seconds (wall is CPU + 0.1 s).
using Runs = std::map<std::string, std::vector<double>>;

// Writes the runs as account run would: per run one process and one tree record.
std::string write_runs(const TempDir& dir, const std::string& name, const Runs& ops) {
  std::string path = dir.file(name);
  std::ofstream f(path);
  int64_t t = 1'000'000'000'000;
  int pid = 100;
  for (const auto& [op, cpus] : ops) {
    int run = 0;
    for (double cpu : cpus) {
      t += 10'000'000'000;
      int64_t wall = int64_t((cpu + 0.1) * 1e9);
      f << fmt::format(
          R"({{"schema":1,"kind":"process","pid":{},"ppid":1,"exe":"/usr/bin/git","argv":["git"],)"
          R"("test":"t","op":"{}","start_ns":{},"end_ns":{},"cpu_user_s":{},"cpu_sys_s":0,)"
          R"("malloc_bytes":1048576,"malloc_calls":10,"free_calls":10,"copied_bytes":0,)"
          R"("copied_calls":0,"heap_peak_bytes":4096,"vm_peak_bytes":10485760,)"
          R"("rss_peak_bytes":5242880,"sampled_size_peak_bytes":10485760,)"
          R"("sampled_rss_peak_bytes":5242880,"samples":3,"end":"exit","exit_code":0}})"
          "\n",
          ++pid, op, t + 1000, t + wall - 1000, cpu);
      f << fmt::format(
          R"({{"schema":1,"kind":"tree","test":"t","op":"{}","run":{},"command":["git"],)"
          R"("start_ns":{},"end_ns":{},"processes":1,"sampled_size_peak_bytes":10485760,)"
          R"("sampled_rss_peak_bytes":5242880,"samples":3,"exit_code":0}})"
          "\n",
          op, ++run, t, t + wall);
    }
  }
  return path;
}

ProgramResult compare(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ACCOUNT_CLI_PATH, "compare"};
  argv.insert(argv.end(), args.begin(), args.end());
  return testing::run_program(argv);
}

const std::vector<double> kTen = {1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.00, 1.01, 0.99};

std::vector<double> times(std::vector<double> v, double factor) {
  for (double& x : v) x *= factor;
  return v;
}

TEST(CompareGate, EmptyInputIsNotJudged) {
  TempDir dir;
  std::string a = write_runs(dir, "a.jsonl", {{"clone", kTen}});
  std::string empty = write_runs(dir, "empty.jsonl", {});
  ProgramResult r = compare({a, empty, "--names", "a,b", "--fail-on", "cpu=5%"});
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_NE(r.err.find("account: compare: --fail-on: cpu: b (" + empty +
                       ") not judged: no runs in it: check the account run that writes it (a "
                       "failed run leaves it empty or missing)\n"),
            std::string::npos)
      << r.err;
  // The empty file is one line, not one per operation it lacks.
  EXPECT_EQ(r.err.find("clone not judged"), std::string::npos) << r.err;
}

TEST(CompareGate, MissingInputIsNotJudgedWithAGateAndUnreadableWithout) {
  TempDir dir;
  std::string a = write_runs(dir, "a.jsonl", {{"clone", kTen}});
  ProgramResult gated = compare({a, dir.file("none.jsonl"), "--fail-on", "cpu=5%,wall=5%"});
  EXPECT_EQ(gated.status, 5) << gated.err;
  EXPECT_NE(gated.err.find("--fail-on: cpu, wall: " + dir.file("none.jsonl") +
                           " not judged: no such file: "),
            std::string::npos)
      << gated.err;
  ProgramResult plain = compare({a, dir.file("none.jsonl")});
  EXPECT_EQ(plain.status, 1) << plain.err;
}

TEST(CompareGate, OperationOnOneSideOnlyIsNotJudged) {
  TempDir dir;
  std::string a = write_runs(dir, "a.jsonl", {{"clone", kTen}, {"push", kTen}});
  std::string b = write_runs(dir, "b.jsonl", {{"clone", kTen}, {"pull", kTen}});
  ProgramResult r = compare({a, b, "--names", "a,b", "--fail-on", "cpu=5%"});
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_EQ(r.err,
            "account: compare: --fail-on: cpu: t/push not judged: only in a: record it with both "
            "builds (or --allow-unjudged)\n"
            "account: compare: --fail-on: cpu: t/pull not judged: only in b: record it with both "
            "builds (or --allow-unjudged)\n"
            "account: compare: --fail-on: 2 of 3 gated figures not judged: exit status 5 "
            "(--allow-unjudged passes them)\n");
}

// The issue's case: one run a side and +176 % CPU was "not gated", exit 0.
TEST(CompareGate, TooFewRunsIsNotJudgedWhateverTheChange) {
  TempDir dir;
  std::string a = write_runs(dir, "a.jsonl", {{"clone", {1.0}}});
  std::string b = write_runs(dir, "b.jsonl", {{"clone", {2.76}}});
  ProgramResult r = compare({a, b, "--names", "a,b", "--fail-on", "cpu=5%"});
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_EQ(r.err,
            "account: compare: --fail-on: cpu: t/clone not judged: 1 and 1 runs, 4 a side needed: "
            "--repeat 4\n"
            "account: compare: --fail-on: 1 of 1 gated figures not judged: exit status 5 "
            "(--allow-unjudged passes them)\n");
  ProgramResult allowed = compare({a, b, "--fail-on", "cpu=5%", "--allow-unjudged"});
  EXPECT_EQ(allowed.status, 0) << allowed.err;
  EXPECT_NE(allowed.err.find("not judged: 1 and 1 runs"), std::string::npos) << allowed.err;
}

// Records without sampled_rss_anon_peak_bytes did not count anon: unknown,
// not 0, so not judged (before, 0 against 0 was "same" and passed).
TEST(CompareGate, AFigureNotCountedIsNotJudged) {
  TempDir dir;
  std::string a = write_runs(dir, "a.jsonl", {{"clone", kTen}});
  std::string b = write_runs(dir, "b.jsonl", {{"clone", kTen}});
  ProgramResult r = compare({a, b, "--names", "a,b", "--fail-on", "cpu=5%,anon=5%"});
  EXPECT_EQ(r.status, 5) << r.err;
  EXPECT_EQ(r.err,
            "account: compare: --fail-on: anon: t/clone not judged: not counted in runs of a and "
            "b: record it in every run (or leave it out of --fail-on)\n"
            "account: compare: --fail-on: 1 of 2 gated figures not judged: exit status 5 "
            "(--allow-unjudged passes them)\n");
}

TEST(CompareGate, RegressionWinsOverNotJudged) {
  TempDir dir;
  std::string a = write_runs(dir, "a.jsonl", {{"clone", kTen}, {"push", {1.0}}});
  std::string b = write_runs(dir, "b.jsonl", {{"clone", times(kTen, 1.5)}, {"push", {1.0}}});
  ProgramResult r = compare({a, b, "--names", "a,b", "--fail-on", "cpu=5%"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(r.err.rfind("account: compare: regression: t/clone: b vs a: cpu +50.0%", 0), 0u)
      << r.err;
  EXPECT_NE(r.err.find("cpu: t/push not judged: 1 and 1 runs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 of 2 gated figures not judged: exit status 3, which wins over 5"),
            std::string::npos)
      << r.err;
  // --allow-unjudged does not pass a regression.
  EXPECT_EQ(compare({a, b, "--fail-on", "cpu=5%", "--allow-unjudged"}).status, 3);
}

TEST(CompareGate, NotJudgedWinsOverSkippedLines) {
  TempDir dir;
  std::string a = write_runs(dir, "a.jsonl", {{"clone", {1.0}}});
  std::string b = write_runs(dir, "b.jsonl", {{"clone", {1.0}}});
  std::ofstream(b, std::ios::app) << "not json\n";
  EXPECT_EQ(compare({a, b, "--fail-on", "cpu=5%"}).status, 5);
  EXPECT_EQ(compare({a, b, "--fail-on", "cpu=5%", "--allow-unjudged"}).status, 2);
  EXPECT_EQ(compare({a, b}).status, 2);
}

TEST(CompareGate, EverythingJudgedAndWithinLimitsIsZero) {
  TempDir dir;
  std::string a = write_runs(dir, "a.jsonl", {{"clone", kTen}});
  std::string b = write_runs(dir, "b.jsonl", {{"clone", times(kTen, 1.01)}});
  ProgramResult r = compare({a, b, "--fail-on", "cpu=5%,wall=5%"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(CompareGate, HelpNamesAllowUnjudgedAndTheStatuses) {
  ProgramResult r = compare({"--help"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--allow-unjudged"), std::string::npos);
  EXPECT_NE(r.out.find("5 (--fail-on: something gated"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace account
