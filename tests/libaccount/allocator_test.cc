// The shim forwards the malloc family to the allocator the program would use
// without it (next_allocator.cc): a program on jemalloc or tcmalloc stays on
// it, with the same output, and every call it makes is counted.
#include <gtest/gtest.h>

#include "shim_run.h"

namespace account::testing {
namespace {

struct Counts {
  long long usable, calls, frees, bytes;
};

Counts counts_of(const std::string& out) {
  return {value_after(out, "usable(100)"), value_after(out, "calls"), value_after(out, "frees"),
          value_after(out, "bytes")};
}

// Runs foreign_allocator (or its jemalloc build) with LD_PRELOAD as given
// (nothing: bare) and a record file.
ShimRun run(const TempDir& dir, const std::string& program, const std::string& preload,
            const std::vector<std::string>& args = {}, const std::string& tunables = "") {
  ShimRun r;
  ProgramOptions options;
  options.env = clean_env({{"ACCOUNT_OUTPUT", dir.file("records.jsonl")}});
  if (!tunables.empty()) options.env["GLIBC_TUNABLES"] = tunables;
  if (!preload.empty()) options.env["LD_PRELOAD"] = preload;
  options.timeout_s = 60;
  r.output = dir.file("records.jsonl");
  std::vector<std::string> argv{test_program(program)};
  argv.insert(argv.end(), args.begin(), args.end());
  r.result = run_program(argv, options);
  r.records = read_records(r.output);
  return r;
}

// strdup's copy of a 45-character string: the one call libc makes for the
// program on its own.
constexpr long long kStrdupBytes = 46;

// The program's own calls are all in the record, with strdup's, and on jemalloc
// or tcmalloc one more: the emergency exception pool of the libstdc++ they
// bring in (72704 bytes with GCC 12's; its size depends on the version).
void expect_counted(const ShimRun& r, const Counts& own, bool with_libstdcxx_pool) {
  ASSERT_EQ(r.records.processes.size(), 1u) << dump(r);
  const ProcessRecord& p = r.records.processes.front();
  EXPECT_EQ(p.malloc_calls, uint64_t(own.calls + 1 + (with_libstdcxx_pool ? 1 : 0))) << dump(r);
  EXPECT_EQ(p.free_calls, uint64_t(own.frees)) << dump(r);
  if (with_libstdcxx_pool) {
    EXPECT_GT(p.malloc_bytes, uint64_t(own.bytes + kStrdupBytes)) << dump(r);
    EXPECT_LT(p.malloc_bytes, uint64_t(own.bytes + kStrdupBytes + (1 << 20))) << dump(r);
  } else {
    EXPECT_EQ(p.malloc_bytes, uint64_t(own.bytes + kStrdupBytes)) << dump(r);
  }
  EXPECT_GT(p.heap_peak_bytes, 100000u) << dump(r);  // the 100000-byte realloc was live
  if (with_libstdcxx_pool) {
    // The pool, made by libstdc++'s initializer before the shim's constructor
    // (early_blocks.h), is the one block live at the end: counted at its
    // allocator's usable size, a size class above the request.
    uint64_t pool_request = p.malloc_bytes - uint64_t(own.bytes + kStrdupBytes);
    EXPECT_EQ(p.heap_at_exit_blocks, 1u) << dump(r);
    EXPECT_GT(p.heap_at_exit_bytes, pool_request) << dump(r);
    EXPECT_LT(p.heap_at_exit_bytes, pool_request + pool_request / 4) << dump(r);
  }
  EXPECT_EQ(slurp(r.output).find("malloc_interposed"), std::string::npos) << dump(r);
}

// `program` on glibc's allocator: the same output with the shim, every call counted.
void expect_glibc_program_counted(const std::string& program) {
  TempDir dir;
  ShimRun bare = run(dir, program, "");
  ShimRun shim = run(dir, program, ACCOUNT_SHIM_PATH);
  ASSERT_EQ(shim.result.status, 0) << dump(shim);
  EXPECT_EQ(shim.result.out, bare.result.out);
  EXPECT_EQ(counts_of(shim.result.out).usable, 104);
  expect_counted(shim, counts_of(shim.result.out), false);
}

TEST(ShimAllocator, GlibcProgramCountsAsBefore) {
  expect_glibc_program_counted("foreign_allocator");
}

// A non-PIE program that keeps malloc's address (Debian's python3.11): dlsym
// names its canonical PLT entry, not the shim's malloc, which every call
// still reaches. Its malloc figures are counted, not marked unknown.
TEST(ShimAllocator, NonPieProgramThatKeepsMallocsAddressIsCounted) {
  expect_glibc_program_counted("foreign_allocator_nopie");
}

// Its child, which makes no call before it exits, has the same malloc: the
// parent's calls reached the shim, and the child's lookup is the parent's.
TEST(ShimAllocator, NonPieProgramsForkedChildWithoutACallIsCountedToo) {
  TempDir dir;
  ShimRun shim = run(dir, "foreign_allocator_nopie", ACCOUNT_SHIM_PATH, {"fork"});
  ASSERT_EQ(shim.result.status, 0) << dump(shim);
  ASSERT_EQ(shim.records.processes.size(), 2u) << dump(shim);
  const ProcessRecord& child = shim.records.processes.front();  // it ends first
  EXPECT_EQ(child.malloc_calls, 0u) << dump(shim);
  EXPECT_TRUE(child.malloc_interposed) << dump(shim);
  EXPECT_EQ(slurp(shim.output).find("malloc_interposed"), std::string::npos) << dump(shim);
}

TEST(ShimAllocator, ProgramLinkedWithJemallocStaysOnJemalloc) {
  TempDir dir;
  ShimRun bare = run(dir, "foreign_allocator_jemalloc", "");
  ASSERT_EQ(bare.result.status, 0) << bare.result.err;
  ASSERT_EQ(counts_of(bare.result.out).usable, 112) << bare.result.out;  // jemalloc's answer
  ShimRun shim = run(dir, "foreign_allocator_jemalloc", ACCOUNT_SHIM_PATH);
  ASSERT_EQ(shim.result.status, 0) << dump(shim);
  EXPECT_EQ(shim.result.out, bare.result.out);
  EXPECT_EQ(shim.result.err, "");
  expect_counted(shim, counts_of(shim.result.out), true);
}

// `allocator` preloaded after the shim: the program runs on it as without the
// shim, and every call is counted.
void expect_kept_and_counted(const std::string& allocator) {
  TempDir dir;
  ShimRun bare = run(dir, "foreign_allocator", allocator);
  ShimRun shim = run(dir, "foreign_allocator", std::string(ACCOUNT_SHIM_PATH) + ":" + allocator);
  ASSERT_EQ(shim.result.status, 0) << dump(shim);
  EXPECT_EQ(shim.result.out, bare.result.out);
  EXPECT_EQ(counts_of(shim.result.out).usable, 112);
  expect_counted(shim, counts_of(shim.result.out), true);
}

TEST(ShimAllocator, JemallocPreloadedAfterTheShimIsCountedAndKept) {
  expect_kept_and_counted(ACCOUNT_JEMALLOC_SO);
}

TEST(ShimAllocator, TcmallocPreloadedAfterTheShimIsCountedAndKept) {
  expect_kept_and_counted(ACCOUNT_TCMALLOC_SO);
}

// glibc's debugging allocator, with its checks on: it defines the malloc
// family at a hidden version (malloc@GLIBC_2.2.5, no default), which an
// unversioned lookup skips, and a checked block's usable size is exactly what
// was asked (100), not glibc's 104.
constexpr const char* kMallocDebug = "libc_malloc_debug.so.0";
constexpr const char* kMallocChecks = "glibc.malloc.check=3";

TEST(ShimAllocator, MallocDebugPreloadedAfterTheShimKeepsItsChecksAndIsCounted) {
  TempDir dir;
  ShimRun bare = run(dir, "foreign_allocator", kMallocDebug, {}, kMallocChecks);
  ShimRun shim = run(dir, "foreign_allocator", std::string(ACCOUNT_SHIM_PATH) + ":" + kMallocDebug,
                     {}, kMallocChecks);
  ASSERT_EQ(bare.result.status, 0) << dump(bare);
  ASSERT_EQ(counts_of(bare.result.out).usable, 100) << bare.result.out;
  ASSERT_EQ(shim.result.status, 0) << dump(shim);
  EXPECT_EQ(shim.result.out, bare.result.out);
  expect_counted(shim, counts_of(shim.result.out), false);
}

// Preloaded before the shim, another allocator's malloc is the one the program
// binds to: the shim sees no malloc-family call, says so in the record, and
// must not break the program (its start-up check must not hand glibc's blocks
// to jemalloc).
void expect_first_runs_unchanged(const char* program, const std::string& allocator,
                                 const std::string& tunables = "") {
  TempDir dir;
  ShimRun bare = run(dir, program, allocator, {}, tunables);
  ShimRun shim = run(dir, program, allocator + ":" ACCOUNT_SHIM_PATH, {}, tunables);
  ASSERT_EQ(shim.result.status, 0) << dump(shim);
  EXPECT_EQ(shim.result.out, bare.result.out);
  ASSERT_EQ(shim.records.processes.size(), 1u) << dump(shim);
  EXPECT_EQ(shim.records.processes.front().malloc_calls, 0u);
  EXPECT_NE(slurp(shim.output).find(R"("malloc_interposed":false)"), std::string::npos)
      << dump(shim);
}

TEST(ShimAllocator, JemallocPreloadedBeforeTheShimRunsUnchanged) {
  expect_first_runs_unchanged("foreign_allocator", ACCOUNT_JEMALLOC_SO);
}

// The same behind a non-PIE program's canonical PLT entry: no call reaches
// the shim's malloc, so nothing says it was the program's.
TEST(ShimAllocator, JemallocPreloadedBeforeTheShimOfANonPieProgram) {
  expect_first_runs_unchanged("foreign_allocator_nopie", ACCOUNT_JEMALLOC_SO);
}

// An unversioned lookup finds the shim's malloc first, but the program's
// reference, versioned, binds to the debugging allocator's.
TEST(ShimAllocator, MallocDebugPreloadedBeforeTheShimRunsUnchanged) {
  expect_first_runs_unchanged("foreign_allocator", kMallocDebug, kMallocChecks);
  expect_first_runs_unchanged("foreign_allocator_nopie", kMallocDebug, kMallocChecks);
}

#ifdef ACCOUNT_GCC_SANITIZER_PROGRAMS
// GCC's sanitizer runtimes are shared libraries the program links: loaded
// after the shim, they start (and allocate, through the shim) before its
// constructor, while their allocator cannot answer a block's usable size yet
// (LeakSanitizer aborts, ThreadSanitizer faults, AddressSanitizer stops on a
// check). The shim asks them nothing until its constructor (early_blocks.h):
// the program runs as bare, on its sanitizer's allocator, every call counted.
TEST(ShimAllocator, LeakSanitizerRuntimeAfterTheShimStartsAndIsCounted) {
  TempDir dir;
  ShimRun bare = run(dir, "lsan_alloc", "");
  ASSERT_EQ(bare.result.status, 0) << bare.result.err;
  ASSERT_EQ(bare.result.out, "ok\n");
  ShimRun shim = run(dir, "lsan_alloc", ACCOUNT_SHIM_PATH);
  ASSERT_EQ(shim.result.status, 0) << dump(shim);
  EXPECT_EQ(shim.result.out, bare.result.out);
  EXPECT_EQ(shim.result.err, "");
  ASSERT_EQ(shim.records.processes.size(), 1u) << dump(shim);
  const ProcessRecord& p = shim.records.processes.front();
  EXPECT_TRUE(p.malloc_interposed) << dump(shim);
  // The program's four calls and its two frees, and the runtime's own start
  // (the loader's messages of its lookups, a few, each freed).
  EXPECT_GE(p.malloc_calls, 4u) << dump(shim);
  EXPECT_LT(p.malloc_calls, 4u + 16) << dump(shim);
  EXPECT_GE(p.malloc_bytes, 100u + 150 + 1000 + 300) << dump(shim);
  EXPECT_GE(p.copied_bytes, 10u) << dump(shim);
  // Exactly the 1000-byte block at the end: LeakSanitizer's usable size is
  // the request, and every block made before the constructor was settled.
  EXPECT_EQ(p.heap_at_exit_blocks, 1u) << dump(shim);
  EXPECT_EQ(p.heap_at_exit_bytes, 1000u) << dump(shim);
}

TEST(ShimAllocator, ThreadSanitizerRuntimeAfterTheShimStartsAndIsCounted) {
  TempDir dir;
  ShimRun shim = run(dir, "tsan_threads", ACCOUNT_SHIM_PATH);
  ASSERT_EQ(shim.result.status, 0) << dump(shim);
  EXPECT_EQ(shim.result.out, "ok\n");
  EXPECT_EQ(shim.result.err, "");
  ASSERT_EQ(shim.records.processes.size(), 1u) << dump(shim);
  const ProcessRecord& p = shim.records.processes.front();
  EXPECT_TRUE(p.malloc_interposed) << dump(shim);
  EXPECT_GE(p.malloc_calls, 4u) << dump(shim);  // each thread's 100 bytes, and the runtime's
  EXPECT_GE(p.malloc_bytes, 400u) << dump(shim);
  EXPECT_GE(p.free_calls, 4u) << dump(shim);
}

// AddressSanitizer refuses to start behind another preloaded library unless
// told not to check (verify_asan_link_order=0); told so, it runs.
TEST(ShimAllocator, AddressSanitizerRuntimeAfterTheShimRunsWhenToldNotToCheckTheOrder) {
  TempDir dir;
  ProgramOptions options;
  options.env = clean_env({{"ACCOUNT_OUTPUT", dir.file("records.jsonl")},
                           {"LD_PRELOAD", ACCOUNT_SHIM_PATH},
                           {"ASAN_OPTIONS", "verify_asan_link_order=0"}});
  options.timeout_s = 60;
  ProgramResult result = run_program({test_program("asan_copy")}, options);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "sum 14\n");
  EXPECT_EQ(result.err, "");
  RecordFile f = read_records(dir.file("records.jsonl"));
  ASSERT_EQ(f.processes.size(), 1u) << slurp(dir.file("records.jsonl"));
  const ProcessRecord& p = f.processes.front();
  EXPECT_TRUE(p.malloc_interposed);
  EXPECT_GE(p.malloc_bytes, 10000u);  // its two blocks of 5000
  EXPECT_GE(p.copied_bytes, 5000u);   // and the copy of one into the other
  EXPECT_GE(p.free_calls, 2u);
}
#endif

}  // namespace
}  // namespace account::testing
