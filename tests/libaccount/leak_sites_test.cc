// The stacks of the heap at exit and of temporaries (ACCOUNT_BACKTRACE_LEAKS,
// account run --leaks; docs/leaks.md), from tests/programs/leaks.c, whose
// blocks and the functions that made them are known, through the report and
// both exports.
#include <gtest/gtest.h>

#include <algorithm>
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

namespace account::testing {
namespace {

// Records of two runs each of the leaks program in `mode`, all blocks captured.
std::string build_records(const TempDir& dir, const std::string& mode) {
  std::string out = dir.path() + "/" + mode + ".jsonl";
  for (int run = 0; run < 2; ++run) {
    ProgramResult r = account({"run", "-q", "--backtrace-min", "1", "--test", "t", "--op", "o",
                               "-o", out, "--", test_program("leaks"), mode});
    EXPECT_EQ(r.status, 0) << r.err;
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(StackDiff, ABuildWithOneMoreAllocationSiteShowsThatSiteAloneAsGrown) {
  TempDir dir;
  std::string before = build_records(dir, "three");
  std::string after = build_records(dir, "four");
  ProgramResult diff = account({"compare", "--backtraces", "--names", "A,B", before, after});
  ASSERT_EQ(diff.status, 0) << diff.err;
  // keep_extra's 4000 bytes a run, and no other stack changed either way.
  EXPECT_NE(diff.out.find("Test t, operation o (2 runs, 2 runs)\n  grew:\n       +3.91 KiB  0 B -> "
                          "3.91 KiB  leaks;"),
            std::string::npos)
      << diff.out;
  EXPECT_EQ(occurrences(diff.out, ";keep_extra\n"), 1u) << diff.out;
  EXPECT_EQ(diff.out.find("shrank:"), std::string::npos) << diff.out;
  EXPECT_EQ(lines_of(diff.out).size(), 5u) << diff.out;

  // The exported profiles say the same: B's folded stacks are A's and one more.
  ProgramResult a = account({"export", "--format", "folded", before});
  ProgramResult b = account({"export", "--format", "folded", after});
  ASSERT_EQ(a.status, 0);
  ASSERT_EQ(b.status, 0);
  std::vector<std::string> only_b;
  std::vector<std::string> a_lines = lines_of(a.out);
  for (const std::string& line : lines_of(b.out))
    if (std::find(a_lines.begin(), a_lines.end(), line) == a_lines.end()) only_b.push_back(line);
  ASSERT_EQ(only_b.size(), 1u) << b.out;
  EXPECT_NE(only_b[0].find(";main;keep_extra 8000"), std::string::npos) << only_b[0];
  EXPECT_EQ(lines_of(b.out).size(), a_lines.size() + 1);

  // pprof itself: -diff_base reads both exported profiles and finds only
  // keep_extra's 8000 bytes (two runs of 4000) grown.
  std::string pa = dir.path() + "/a.pb.gz", pb = dir.path() + "/b.pb.gz";
  ASSERT_EQ(account({"export", "--format", "pprof", "-o", pa, before}).status, 0);
  ASSERT_EQ(account({"export", "--format", "pprof", "-o", pb, after}).status, 0);
  ProgramOptions home;
  home.env["HOME"] = dir.path();  // pprof keeps its settings there
  ProgramResult top = run_program(
      {ACCOUNT_PPROF_BIN, "-top", "-sample_index=alloc_space", "-diff_base", pa, pb}, home);
  ASSERT_EQ(top.status, 0) << top.err;
  EXPECT_NE(top.out.find("Showing nodes accounting for 7.81kB"), std::string::npos) << top.out;
  EXPECT_EQ(occurrences(top.out, "  keep_extra\n"), 1u) << top.out;
  EXPECT_EQ(top.out.find("keep_large"), std::string::npos) << top.out;

  // The compare page's difference icicle: keep_extra is the one frame wholly
  // new (the deepest red), nothing is blue, and the frames it shares with
  // the rest are pale red or grey.
  std::string page = dir.path() + "/diff.html";
  ASSERT_EQ(
      account({"compare", "--format", "html", "--names", "A,B", "-o", page, before, after}).status,
      0);
  std::string html = slurp(page);
  EXPECT_EQ(occurrences(html, "fill=\"hsl(4,80%,48%)\""), 1u);
  size_t red = html.find("fill=\"hsl(4,80%,48%)\"");
  ASSERT_NE(red, std::string::npos);
  EXPECT_EQ(html.compare(html.find("<title>", red) + 7, 10, "keep_extra"), 0)
      << html.substr(red, 200);
  EXPECT_EQ(html.find("hsl(215,"), std::string::npos);
  EXPECT_NE(html.find("<title>keep_large"), std::string::npos);
}

TEST(StackDiff, IsTextOnly) {
  TempDir dir;
  std::string a = build_records(dir, "three");
  ProgramResult r = account({"compare", "--backtraces", "--format", "csv", a, a});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "account: compare: --backtraces is text only and takes no --format, --columns or "
            "--sort\n");
}

}  // namespace
}  // namespace account::testing
