// The Monotone perf-test table (shared/seeds/003): records whose figures are the
// seed's own must print the seed's lines, character for character.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

#include "commands/compare.h"
#include "commands/report.h"
#include "compare/compare_table.h"
#include "golden.h"
#include "report_tables.h"

namespace account {
namespace {

// Verbatim from the seed.
const char* const kSeed =
    "                                     Maximum (MiB)     Copied   Malloc\n"
    "     *Test*     Operation  CPU(s)   Size  Resident     (MiB)    (MiB)\n"
    "--------------- ---------  ------  -------  -------   -------  -------\n"
    "zero_small      add files    0.02     7.29     2.75       0.3      1.0\n"
    "zero_small      commit       0.28     7.62     4.07       8.5     10.8\n"
    "zero_small      checkout     0.03     7.36     3.52       0.4      1.3\n"
    "zero_small      serve        0.25     9.38     4.78       5.5     10.4\n"
    "zero_small      pull         0.05     9.38     4.71       0.6      2.0\n"
    "\n"
    "monotone        add files    0.38     9.23     4.45      26.5     11.1\n"
    "monotone        commit       3.33    12.74     9.06     131.5    109.5\n"
    "monotone        checkout     1.57    19.60    15.68      55.8     45.3\n"
    "monotone        serve        3.04    20.68    15.76     122.4     99.4\n"
    "monotone        pull         3.41    15.18    10.32     138.8    137.0\n";

struct SeedRow {
  const char* test;
  const char* op;
  double cpu, size, resident, copied, malloc;
};

const SeedRow kRows[] = {
    {"zero_small", "add files", 0.02, 7.29, 2.75, 0.3, 1.0},
    {"zero_small", "commit", 0.28, 7.62, 4.07, 8.5, 10.8},
    {"zero_small", "checkout", 0.03, 7.36, 3.52, 0.4, 1.3},
    {"zero_small", "serve", 0.25, 9.38, 4.78, 5.5, 10.4},
    {"zero_small", "pull", 0.05, 9.38, 4.71, 0.6, 2.0},
    {"monotone", "add files", 0.38, 9.23, 4.45, 26.5, 11.1},
    {"monotone", "commit", 3.33, 12.74, 9.06, 131.5, 109.5},
    {"monotone", "checkout", 1.57, 19.60, 15.68, 55.8, 45.3},
    {"monotone", "serve", 3.04, 20.68, 15.76, 122.4, 99.4},
    {"monotone", "pull", 3.41, 15.18, 10.32, 138.8, 137.0},
};

uint64_t bytes(double mib) {
  return uint64_t(std::llround(mib * 1024 * 1024));
}

// One monotone process per operation, as the seed ran it, in a tree record of its own.
std::string records() {
  std::string out;
  uint64_t t = 1000000000000;
  int pid = 1000;
  for (const SeedRow& r : kRows) {
    out += fmt::format(
        R"({{"schema":1,"kind":"process","pid":{},"ppid":1,"exe":"/usr/bin/monotone",)"
        R"("argv":["monotone","{}"],"test":"{}","op":"{}","start_ns":{},"end_ns":{},)"
        R"("cpu_user_s":{},"cpu_sys_s":0,"malloc_bytes":{},"malloc_calls":1,"free_calls":1,)"
        R"("copied_bytes":{},"copied_calls":1,"heap_peak_bytes":1,"vm_peak_bytes":{},)"
        R"("rss_peak_bytes":{},"sampled_size_peak_bytes":0,"sampled_rss_peak_bytes":0,)"
        R"("samples":0,"end":"exit","exit_code":0}})"
        "\n",
        pid, r.op, r.test, r.op, t + 1000, t + 2000, r.cpu, bytes(r.malloc), bytes(r.copied),
        bytes(r.size), bytes(r.resident));
    out += fmt::format(
        R"({{"schema":1,"kind":"tree","test":"{}","op":"{}","run":1,"start_ns":{},"end_ns":{},)"
        R"("processes":1,"sampled_size_peak_bytes":{},"sampled_rss_peak_bytes":{},"samples":1,)"
        R"("exit_code":0,"aborted":false}})"
        "\n",
        r.test, r.op, t, t + 3000, bytes(r.size) - 4096, bytes(r.resident) - 4096);
    t += 10000;
    ++pid;
  }
  return out;
}

TEST(Seed, MonotoneRowsCharacterForCharacter) {
  testing::TempFile f(records());
  ReportOptions o;
  o.files = {f.path()};
  testing::Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.err.empty());
  EXPECT_EQ(r.out, kSeed);
}

}  // namespace
}  // namespace account
