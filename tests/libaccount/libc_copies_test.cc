// The copies glibc makes inside itself (issue 17): counted in libc_copied_*,
// part of the copied_* totals, never mixed with the program's own copies or
// with realloc's moves, and switched off by ACCOUNT_LIBC_COPIES=0.
#include <gtest/gtest.h>

#include <sstream>

#include "shim_run.h"

namespace account::testing {
namespace {

struct LibcRun {
  ShimRun run;
  ProcessRecord record;
  long long libc_bytes = -1, libc_calls = -1;
};

LibcRun run_libc_copies(const TempDir& dir, const std::string& mode, const Env& extra = {}) {
  Env env = {{"ACCOUNT_SAMPLE_MS", "0"}};
  for (const auto& [k, v] : extra) env[k] = v;
  LibcRun r;
  r.run = run_with_shim(dir, {test_program("libc_copies"), dir.file("out.txt"), mode}, env);
  EXPECT_EQ(r.run.result.status, 0) << dump(r.run);
  EXPECT_TRUE(r.run.records.bad_lines.empty()) << dump(r.run);
  EXPECT_EQ(r.run.records.processes.size(), 1u) << dump(r.run);
  if (r.run.records.processes.empty()) return r;
  r.record = r.run.records.processes.front();
  r.libc_bytes = record_field(r.run, r.record.pid, "libc_copied_bytes");
  r.libc_calls = record_field(r.run, r.record.pid, "libc_copied_calls");
  return r;
}

// fwrite 1000 + fputs 500 + fprintf %s 300 + printf %s 400 + strdup 2001: each
// byte goes through a memcpy/mempcpy inside libc (stdio copies into the FILE
// buffer, every call fitting in it; strdup copies with its NUL). The format
// literals, the newline and the program's own report add a little more, so
// the bound is a lower one; the program's own memcpy stays exact.
TEST(ShimLibcCopies, StdioAndStrdupCountedAndDirectCopiesStayExact) {
  TempDir dir;
  LibcRun r = run_libc_copies(dir, "0");
  ASSERT_EQ(value_after(r.run.result.out, "libc_at_least"), 4201) << r.run.result.out;
  EXPECT_EQ(slurp(dir.file("out.txt")).size(), 1800u);
  EXPECT_EQ(r.run.result.out.find(std::string(400, 'd') + "\n"), 0u);
  ASSERT_GE(r.libc_bytes, 4201) << slurp(r.run.output);
  // A handful of calls (5 calls above, the program's report, exit), not
  // hundreds: nothing else of the shim's own goes through libc's slots.
  EXPECT_GE(r.libc_calls, 5);
  EXPECT_LT(r.libc_calls, 40) << slurp(r.run.output);
  EXPECT_LT(r.libc_bytes, 4201 + 400) << slurp(r.run.output);
  EXPECT_EQ(r.record.copied_bytes - uint64_t(r.libc_bytes), 12345u);
  EXPECT_EQ(r.record.copied_calls - uint64_t(r.libc_calls), 1u);
  EXPECT_EQ(record_field(r.run, r.record.pid, "libc_copies_counted"), -1);
}

// glibc's realloc moves the block with its own memcpy: that is
// realloc_copied_bytes (exact) and nothing else: the libc figures are those of
// the same program without the realloc.
TEST(ShimLibcCopies, ReallocMoveCountedOnce) {
  TempDir without_dir, with_dir;
  LibcRun without = run_libc_copies(without_dir, "0");
  LibcRun with = run_libc_copies(with_dir, "1");
  ASSERT_EQ(value_after(with.run.result.out, "moved"), 1) << with.run.result.out;
  long long expected = value_after(with.run.result.out, "expected_realloc_copied");
  ASSERT_GE(expected, 1000);
  EXPECT_EQ(with.record.realloc_copied_bytes, uint64_t(expected));
  EXPECT_EQ(without.record.realloc_copied_bytes, 0u);
  EXPECT_EQ(with.libc_bytes, without.libc_bytes)
      << slurp(with.run.output) << slurp(without.run.output);
  EXPECT_EQ(with.libc_calls, without.libc_calls);
  EXPECT_EQ(with.record.copied_bytes, without.record.copied_bytes);
}

// Switched off: today's figures exactly (the program's one memcpy), and no
// libc_* key at all.
TEST(ShimLibcCopies, SwitchedOffGivesOnlyTheExportedCopies) {
  TempDir dir;
  LibcRun r = run_libc_copies(dir, "1", {{"ACCOUNT_LIBC_COPIES", "0"}});
  EXPECT_EQ(r.run.result.err, "");
  EXPECT_EQ(r.record.copied_bytes, 12345u);
  EXPECT_EQ(r.record.copied_calls, 1u);
  EXPECT_EQ(r.libc_bytes, -1);
  EXPECT_EQ(r.libc_calls, -1);
  EXPECT_EQ(slurp(r.run.output).find("\"libc_"), std::string::npos) << slurp(r.run.output);
  long long expected = value_after(r.run.result.out, "expected_realloc_copied");
  EXPECT_EQ(r.record.realloc_copied_bytes, uint64_t(expected));
}

TEST(ShimLibcCopies, BadSettingWarnsOnceAndCounts) {
  TempDir dir;
  LibcRun r = run_libc_copies(dir, "0", {{"ACCOUNT_LIBC_COPIES", "maybe"}});
  EXPECT_EQ(r.run.result.err, "account: ACCOUNT_LIBC_COPIES=maybe is not 0 or 1; using 1\n");
  EXPECT_GE(r.libc_bytes, 4201);
}

// A C library the shim does not know (here: one reporting version 2.99, a
// library preloaded before the shim): nothing patched, the record says so, and
// the figures are the exported calls only.
TEST(ShimLibcCopies, UnknownLibcPatchesNothingAndSaysSo) {
  TempDir dir;
  std::string preload = test_program("libfake_libc_version.so") + ":" + ACCOUNT_SHIM_PATH;
  ShimRun run = run_with_shim(dir,
                              {"/usr/bin/env", "LD_PRELOAD=" + preload, test_program("libc_copies"),
                               dir.file("out.txt"), "0"},
                              {{"ACCOUNT_SAMPLE_MS", "0"}});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_EQ(run.result.err, "");
  auto records = records_of(run.records, "libc_copies");
  ASSERT_EQ(records.size(), 1u) << dump(run);
  const ProcessRecord& r = records[0];
  EXPECT_EQ(r.copied_bytes, 12345u);
  EXPECT_EQ(r.copied_calls, 1u);
  // The process's last image (env exec'ed it, under the same pid).
  std::istringstream lines(slurp(run.output));
  std::string line;
  for (std::string l; std::getline(lines, l);)
    if (l.find("\"pid\":" + std::to_string(r.pid) + ",") != std::string::npos &&
        l.find("\"end\":\"exec\"") == std::string::npos)
      line = l;
  EXPECT_NE(line.find("\"libc_copies_counted\":false"), std::string::npos) << line;
  EXPECT_EQ(line.find("libc_copied"), std::string::npos) << line;
  // env, the image before the exec, ran on the real glibc: counted, no such key.
  std::string out = slurp(run.output);
  EXPECT_EQ(out.find("\"libc_copies_counted\""), out.rfind("\"libc_copies_counted\"")) << out;
}

// Same output with the shim as without, counted or not.
TEST(ShimLibcCopies, OutputUnchanged) {
  TempDir dir;
  Comparison c = run_both(dir, {test_program("libc_copies"), "out.txt", "1"});
  expect_same(c);
}

}  // namespace
}  // namespace account::testing
