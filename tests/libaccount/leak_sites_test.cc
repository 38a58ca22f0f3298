// The stacks of the heap at exit and of temporaries (ACCOUNT_BACKTRACE_LEAKS,
// account run --leaks; docs/leaks.md), from tests/programs/leaks.c, whose
// blocks and the functions that made them are known, through the report and
// both exports.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "account_cli.h"
#include "shim_run.h"

namespace account::testing {
namespace {

// Records of `account run --leaks` of the leaks program in `mode`.
std::string leak_records(const TempDir& dir, const std::vector<std::string>& mode) {
  std::string out = dir.path() + "/leaks.jsonl";
  std::vector<std::string> args = {"run", "-q", "--leaks", "-o", out, "--", test_program("leaks")};
  args.insert(args.end(), mode.begin(), mode.end());
  ProgramResult run = account(args);
  EXPECT_EQ(run.status, 0) << run.err;
  return out;
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// Folded lines' values summed, and the lines themselves.
uint64_t folded_total(const std::string& folded) {
  uint64_t total = 0;
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);)
    total += std::stoull(line.substr(line.rfind(' ') + 1));
  return total;
}

TEST(LeakSites, ThreeBlocksKeptAreNamedByTheFunctionsThatMadeThem) {
  TempDir dir;
  std::string records = leak_records(dir, {"three"});
  ProgramResult report = account({"report", "--backtraces", "--leaks", records});
  ASSERT_EQ(report.status, 0) << report.err;
  // Requests, exact: 1000 + 2000 + 3000; the blocks freed (500, 10 x 70) are not there.
  EXPECT_NE(report.out.find("3 blocks live at the end, 6000 B (5.86 KiB) requested, in 3 call "
                            "stacks"),
            std::string::npos)
      << report.out;
  EXPECT_EQ(occurrences(report.out, "1 block live at the end"), 3u) << report.out;
  EXPECT_EQ(occurrences(report.out, "#0  keep_large"), 2u) << report.out;
  EXPECT_EQ(occurrences(report.out, "#0  keep_small"), 1u) << report.out;
  EXPECT_NE(
      report.out.find("1 block live at the end, 1000 B, of 1 allocation\n      #0  keep_small"),
      std::string::npos)
      << report.out;

  ProgramResult folded = account({"export", "--format", "folded-leaks", records});
  ASSERT_EQ(folded.status, 0) << folded.err;
  EXPECT_EQ(folded_total(folded.out), 6000u) << folded.out;
  // Folded stacks are named by function: keep_large's two blocks are one line.
  EXPECT_EQ(occurrences(folded.out, ";three;keep_large 5000\n"), 1u) << folded.out;
  EXPECT_EQ(occurrences(folded.out, ";three;keep_small 1000\n"), 1u) << folded.out;
}

TEST(LeakSites, ABlockReallocatedAndFreedLeavesOnlyTheLastOne) {
  TempDir dir;
  std::string records = leak_records(dir, {"calls"});
  ProgramResult report = account({"report", "--backtraces", "--leaks", records});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("1 block live at the end, 100 B requested, in 1 call stack"),
            std::string::npos)
      << report.out;
}

TEST(LeakSites, TemporariesByStack) {
  TempDir dir;
  std::string records = leak_records(dir, {"interleaved", "1000"});
  ProgramResult report = account({"report", "--backtraces", "--temporary", records});
  ASSERT_EQ(report.status, 0) << report.err;
  // Only the second block of each round (80 bytes) is a temporary.
  EXPECT_NE(report.out.find("1000 blocks freed as temporaries, 80000 B (78.12 KiB) requested, "
                            "in 1 call stack"),
            std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("#0  interleaved"), std::string::npos) << report.out;
  ProgramResult folded = account({"export", "--format", "folded-temporary", records});
  ASSERT_EQ(folded.status, 0) << folded.err;
  EXPECT_EQ(folded_total(folded.out), 80000u) << folded.out;
}

TEST(LeakSites, PprofCarriesLeakedAndTemporarySampleTypes) {
  TempDir dir;
  std::string records = leak_records(dir, {"three"});
  std::string profile = dir.path() + "/leaks.pb.gz";
  ProgramResult exported = account({"export", "--format", "pprof", "-o", profile, records});
  ASSERT_EQ(exported.status, 0) << exported.err;
  ProgramResult decoded =
      run_program({"sh", "-c",
                   "gzip -dc < '" + profile + "' | protoc -I '" + ACCOUNT_PPROF_PROTO_DIR +
                       "' --decode=perftools.profiles.Profile profile.proto"});
  ASSERT_EQ(decoded.status, 0) << decoded.err;
  for (const char* s : {"leaked_objects", "leaked_space", "temporary_objects", "temporary_space"})
    EXPECT_NE(decoded.out.find(std::string("string_table: \"") + s + "\""), std::string::npos) << s;
  // Six values a sample: alloc objects and space, leaked, temporary.
  uint64_t leaked_objects = 0, leaked_space = 0;
  int index = 0;
  bool in_sample = false;
  std::istringstream lines(decoded.out);
  for (std::string line; std::getline(lines, line);) {
    if (line == "sample {") in_sample = true, index = 0;
    if (line == "}") in_sample = false;
    if (in_sample && line.rfind("  value: ", 0) == 0) {
      uint64_t v = std::stoull(line.substr(9));
      if (index % 6 == 2) leaked_objects += v;
      if (index % 6 == 3) leaked_space += v;
      ++index;
    }
  }
  EXPECT_EQ(leaked_objects, 3u);
  EXPECT_EQ(leaked_space, 6000u);
}

TEST(LeakSites, RecordsWithoutLeaksSaySo) {
  TempDir dir;
  std::string out = dir.path() + "/plain.jsonl";
  ASSERT_EQ(account({"run", "-q", "--backtrace-min", "1", "-o", out, "--", test_program("leaks"),
                     "three"})
                .status,
            0);
  ProgramResult report = account({"report", "--backtraces", "--leaks", out});
  EXPECT_NE(
      report.out.find("not followed: run with ACCOUNT_BACKTRACE_LEAKS=1 (account run --leaks)"),
      std::string::npos)
      << report.out;
  ProgramResult alone = account({"report", "--leaks", out});
  EXPECT_EQ(alone.status, 1);
  EXPECT_EQ(alone.err, "account: report: --leaks and --temporary go with --backtraces\n");
}

}  // namespace
}  // namespace account::testing
