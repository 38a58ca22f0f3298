// Where account run puts the shim in the command's LD_PRELOAD
// (cli/shim_preload.h): first, behind only the sanitizer runtimes the user
// preloaded first, which refuse to start anywhere else.
#include "shim_preload.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "records.h"
#include "run_program.h"
#include "shim_run.h"

namespace account {
namespace {

const std::string kShim = "/usr/lib/x86_64-linux-gnu/libaccount.so";

TEST(ShimPreload, TheShimComesFirst) {
  EXPECT_EQ(preload_with_shim(kShim, nullptr), kShim);
  EXPECT_EQ(preload_with_shim(kShim, ""), kShim);
  EXPECT_EQ(preload_with_shim(kShim, "libjemalloc.so.2"), kShim + ":libjemalloc.so.2");
  // ld.so splits at spaces and colons alike; empty entries are dropped.
  EXPECT_EQ(preload_with_shim(kShim, "a.so b.so::c.so "), kShim + ":a.so:b.so:c.so");
}

TEST(ShimPreload, LeadingSanitizerRuntimesStayFirst) {
  EXPECT_EQ(preload_with_shim(kShim, "/usr/lib/gcc/x86_64-linux-gnu/12/libasan.so"),
            "/usr/lib/gcc/x86_64-linux-gnu/12/libasan.so:" + kShim);
  EXPECT_EQ(preload_with_shim(kShim, "libasan.so.8 libjemalloc.so.2"),
            "libasan.so.8:" + kShim + ":libjemalloc.so.2");
  EXPECT_EQ(preload_with_shim(kShim, "/x/libclang_rt.asan-x86_64.so:libtsan.so.2"),
            "/x/libclang_rt.asan-x86_64.so:libtsan.so.2:" + kShim);
  // Only the leading ones: one after another library was not first anyway.
  EXPECT_EQ(preload_with_shim(kShim, "libfoo.so:libasan.so.8"), kShim + ":libfoo.so:libasan.so.8");
}

// account run --prepare's command runs without the shim, the rest kept.
TEST(ShimPreload, WithoutTheShimTheRestIsKept) {
  EXPECT_EQ(preload_without_shim(kShim, nullptr), "");
  EXPECT_EQ(preload_without_shim(kShim, kShim.c_str()), "");
  EXPECT_EQ(preload_without_shim(kShim, ("libasan.so.8:" + kShim + " a.so").c_str()),
            "libasan.so.8:a.so");
}

TEST(ShimPreload, SanitizerRuntimesAreKnownByTheirFileName) {
  EXPECT_TRUE(is_sanitizer_runtime("libasan.so.8"));
  EXPECT_TRUE(is_sanitizer_runtime("/usr/lib/x86_64-linux-gnu/libhwasan.so.0"));
  EXPECT_TRUE(is_sanitizer_runtime("libclang_rt.asan-x86_64.so"));
  EXPECT_FALSE(is_sanitizer_runtime("/opt/libasan.so/libfoo.so"));
  EXPECT_FALSE(is_sanitizer_runtime("libjemalloc.so.2"));
  EXPECT_FALSE(is_sanitizer_runtime(""));
}

// Built by a GCC build only (tests/programs/CMakeLists.txt).
#ifdef ASAN_COPY_PATH
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A program built with GCC's -fsanitize=address runs under account run when
// its runtime is preloaded first, as ASan demands of any preload: the same
// output and status as bare, its copies counted, its malloc figures unknown
// (ASan's allocator takes the calls), and no process counted without the shim
// (ASan's leak check at exit is a clone of the process, in its memory).
TEST(ShimPreload, AnAsanProgramRunsWithItsRuntimeFirst) {
  using namespace account::testing;
  ProgramOptions with_asan;
  with_asan.env = clean_env({{"LD_PRELOAD", ACCOUNT_LIBASAN_SO}});
  ProgramResult bare = run_program({ASAN_COPY_PATH}, with_asan);
  ASSERT_EQ(bare.status, 0) << bare.err;
  ASSERT_EQ(bare.out, "sum 14\n");

  TempDir dir;
  std::string out = dir.file("r.jsonl");
  ProgramResult run = run_program(
      {ACCOUNT_CLI_PATH, "run", "-q", "--cgroup=off", "-o", out, "--", ASAN_COPY_PATH}, with_asan);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, bare.out);
  EXPECT_EQ(run.err, "");
  RecordFile f = read_records(out);
  ASSERT_EQ(f.processes.size(), 1u) << slurp(out);
  const ProcessRecord& p = f.processes[0];
  EXPECT_FALSE(p.malloc_interposed) << slurp(out);
  EXPECT_EQ(p.end, "exit");
  // The program's 5000 bytes, and the few ASan's runtime copies through the
  // same memcpy for itself (78 bytes with GCC 12's) and libc's.
  EXPECT_GE(p.copied_bytes, 5000u) << slurp(out);
  EXPECT_LT(p.copied_bytes, 5000u + 1024) << slurp(out);
  ASSERT_EQ(f.trees.size(), 1u);
  EXPECT_EQ(f.trees[0].processes_without_shim, 0u) << slurp(out);
}

// Runs tsan_threads under account run into `out`: it prints "ok" and exits 0
// as bare, with nothing said on stderr.
testing::RecordFile run_tsan_threads(const std::string& out,
                                     const testing::ProgramOptions& options) {
  using namespace account::testing;
  ProgramResult run = run_program(
      {ACCOUNT_CLI_PATH, "run", "-q", "--cgroup=off", "-o", out, "--", TSAN_THREADS_PATH}, options);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "ok\n");
  EXPECT_EQ(run.err, "");
  return read_records(out);
}

// With ThreadSanitizer's runtime preloaded into account run itself, its vfork
// is a fork: the child's start time and exec error, written into the
// parent's memory under a real vfork, stay in the child's copy. The run still
// times the command from its start (before, its tree record said start_ns 0,
// a wall of 56 years) and still says why a command could not run.
TEST(ShimPreload, ATsanProgramRunsWithItsRuntimeFirst) {
  using namespace account::testing;
  ProgramOptions with_tsan;
  with_tsan.env = clean_env({{"LD_PRELOAD", ACCOUNT_LIBTSAN_SO}});
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  RecordFile f = run_tsan_threads(out, with_tsan);
  ASSERT_EQ(f.processes.size(), 1u) << slurp(out);
  ASSERT_EQ(f.trees.size(), 1u) << slurp(out);
  const ProcessRecord& p = f.processes[0];
  const TreeRecord& t = f.trees[0];
  EXPECT_FALSE(p.malloc_interposed) << slurp(out);
  EXPECT_GE(p.copied_bytes, 40u) << slurp(out);  // the four threads' 10 bytes, and TSan's own
  // The run began before the image and ended after it, within the 60 s the
  // test gives it.
  EXPECT_GT(t.start_ns, 0u) << slurp(out);
  EXPECT_LE(t.start_ns, p.start_ns) << slurp(out);
  EXPECT_GE(t.end_ns, p.end_ns) << slurp(out);
  EXPECT_LT(t.end_ns - t.start_ns, 60'000'000'000u) << slurp(out);
  EXPECT_EQ(t.processes_without_shim, 0u) << slurp(out);

  ProgramResult missing = run_program(
      {ACCOUNT_CLI_PATH, "run", "-q", "-o", out, "--", dir.file("no-such-program")}, with_tsan);
  EXPECT_EQ(missing.status, 127);
  EXPECT_NE(missing.err.find("cannot run '" + dir.file("no-such-program") +
                             "': No such file or directory"),
            std::string::npos)
      << missing.err;
}

// Without its runtime preloaded, the shim comes first: ThreadSanitizer's
// runtime then starts behind it (its first allocations reach the shim before
// the shim's constructor, and count into the run's image file), and the
// program runs on TSan's allocator with every call counted.
TEST(ShimPreload, ATsanProgramRunsBehindTheShim) {
  using namespace account::testing;
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  RecordFile f = run_tsan_threads(out, {});
  ASSERT_EQ(f.processes.size(), 1u) << slurp(out);
  ASSERT_EQ(f.trees.size(), 1u) << slurp(out);
  const ProcessRecord& p = f.processes[0];
  EXPECT_TRUE(p.malloc_interposed) << slurp(out);
  EXPECT_GE(p.malloc_calls, 4u) << slurp(out);  // each thread's 100 bytes, and TSan's own
  EXPECT_GE(p.free_calls, 4u) << slurp(out);
  EXPECT_EQ(f.trees[0].processes_without_shim, 0u) << slurp(out);
}
#endif

}  // namespace
}  // namespace account
