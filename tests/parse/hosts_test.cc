// Host-aware records (issue 15, part 3): two hosts' records interleaved in one
// file, with colliding pids (an exec chain of pid 100 on each) and overlapping
// tree windows, report as two hosts, each exact; records without a host are
// one more host of their own.
//
// data/two-hosts.jsonl, test "accounts", operation "login" on both hosts:
//   alpha: tree [1.0 s, 3.0 s], size 300 MiB, resident 100 MiB
//     pid 100 sh   exec  cpu 0.15  copied  2  malloc  1  (MiB)
//     pid 100 git  exit  cpu 0.50  copied 20  malloc 10  size 350  resident 60
//     pid 101 ssh  exit  cpu 0.20  copied  4  malloc  3  size  20  resident 10
//   beta: tree [1.2 s, 3.5 s], size 200 MiB, resident 80 MiB
//     pid 100 sh   exec  cpu 0.02  copied  1  malloc  1
//     pid 100 git  exit  cpu 1.00  copied 40  malloc 30  size 150  resident 90
//     pid 101 ssh  exit  cpu 0.30  copied  6  malloc  5  size  24  resident 12
// The exec'd sh's CPU is inside git's (the kernel's counters survive exec), so
// alpha's run is 0.50 + 0.20 = 0.70 s and beta's 1.00 + 0.30 = 1.30 s. Mixed by
// pid or by window, beta's pid 100 would end alpha's exec chain (or the other
// way round) and beta's processes, which start inside alpha's window, would
// land in alpha's run.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "aggregate.h"
#include "commands/compare.h"
#include "commands/report.h"
#include "compare/compare_table.h"
#include "golden.h"
#include "reader.h"
#include "report_tables.h"

namespace account {
namespace {

namespace json = boost::json;
using testing::data_path;

constexpr double kMiB = 1048576.0;

std::vector<Operation> aggregate(const std::string& path) {
  std::string error;
  auto reader = LineReader::open(path, &error);
  EXPECT_TRUE(reader) << error;
  Aggregator aggregator(Kept::kProcessRecords);
  ReadSummary summary;
  read_records(
      *reader, false, [&](Record&& r) { aggregator.add(r); },
      [](const BadLine& b) { ADD_FAILURE() << b.message(); }, &summary);
  return aggregator.finish();
}

struct Expected {
  const char* host;
  double cpu_s;
  double size_mib, resident_mib, copied_mib, malloc_mib;
  uint64_t processes;
  double wall_s;
};
const Expected kBeta = {"beta", 1.30, 200, 90, 47, 36, 3, 2.3};
const Expected kAlpha = {"alpha", 0.70, 350, 100, 26, 14, 3, 2.0};

void expect_run(const RunFigures& run, const Expected& want) {
  SCOPED_TRACE(want.host);
  EXPECT_EQ(run.host, want.host);
  EXPECT_NEAR(run.cpu_s, want.cpu_s, 1e-9);
  EXPECT_EQ(double(run.size_bytes), want.size_mib * kMiB);
  EXPECT_EQ(double(run.resident_bytes), want.resident_mib * kMiB);
  EXPECT_EQ(double(run.copied_bytes), want.copied_mib * kMiB);
  EXPECT_EQ(double(run.malloc_bytes), want.malloc_mib * kMiB);
  EXPECT_EQ(run.processes, want.processes);
  EXPECT_NEAR(run.wall_s, want.wall_s, 1e-9);
  EXPECT_TRUE(run.has_tree);
  EXPECT_EQ(run.end.text(), "exit 0");
}

TEST(Hosts, EachHostIsARunOfItsOwn) {
  std::vector<Operation> ops = aggregate(data_path("two-hosts.jsonl"));
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].test, "accounts");
  EXPECT_EQ(ops[0].op, "login");
  // Hosts in order of first appearance: beta's sh is the file's first line.
  ASSERT_EQ(ops[0].runs.size(), 2u);
  expect_run(ops[0].runs[0], kBeta);
  expect_run(ops[0].runs[1], kAlpha);
  // Each run holds its own host's three images, pid 100 twice (sh, then git).
  for (const RunFigures& run : ops[0].runs) {
    ASSERT_EQ(run.process_rows.size(), 3u) << run.host;
    for (const ProcessRow& p : run.process_rows) EXPECT_EQ(p.record->host, run.host);
  }
}

// One row per host, exact, in every machine format and in the text table.
TEST(Hosts, ReportByHost) {
  ReportOptions o;
  o.files = {data_path("two-hosts.jsonl")};
  o.by_host = true;
  o.format = Format::kJson;
  testing::Outcome r = testing::report(o);
  ASSERT_EQ(r.status, 0);
  EXPECT_TRUE(r.err.empty());
  json::array rows = json::parse(r.out).as_array();
  ASSERT_EQ(rows.size(), 2u) << r.out;
  const Expected* want[] = {&kBeta, &kAlpha};
  for (size_t i = 0; i < 2; ++i) {
    const json::object& row = rows[i].as_object();
    SCOPED_TRACE(want[i]->host);
    EXPECT_EQ(row.at("test"), "accounts");
    EXPECT_EQ(row.at("operation"), "login");
    EXPECT_EQ(row.at("host"), want[i]->host);
    EXPECT_NEAR(row.at("cpu_s").to_number<double>(), want[i]->cpu_s, 1e-9);
    EXPECT_EQ(row.at("size_mib").to_number<double>(), want[i]->size_mib);
    EXPECT_EQ(row.at("resident_mib").to_number<double>(), want[i]->resident_mib);
    EXPECT_EQ(row.at("copied_mib").to_number<double>(), want[i]->copied_mib);
    EXPECT_EQ(row.at("malloc_mib").to_number<double>(), want[i]->malloc_mib);
    EXPECT_EQ(row.at("runs").to_number<int64_t>(), 1);
    EXPECT_EQ(row.at("processes").to_number<double>(), double(want[i]->processes));
    EXPECT_NEAR(row.at("wall_s").to_number<double>(), want[i]->wall_s, 1e-9);
  }

  o.format = Format::kTable;
  r = testing::report(o);
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "                                     Maximum (MiB)     Copied   Malloc\n"
            "     *Test*     Operation  CPU(s)   Size  Resident     (MiB)    (MiB)   Host\n"
            "--------------- ---------  ------  -------  -------   -------  -------  -----\n"
            "accounts        login        1.30   200.00    90.00      47.0     36.0  beta\n"
            "accounts        login        0.70   350.00   100.00      26.0     14.0  alpha\n");
}

// The per-(test, operation) table takes the two hosts' runs as two runs: each
// column the median of the exact per-host figures.
TEST(Hosts, OperationTableMediansTheHostsRuns) {
  ReportOptions o;
  o.files = {data_path("two-hosts.jsonl")};
  o.format = Format::kCsv;
  testing::Outcome r = testing::report(o);
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,"
            "processes,processes_without_shim\n"
            "accounts,login,1,275,95,36.5,25,2,2.15,3,0\n");
}

// Records without a host (older writers) are a host of their own, "(no
// host)": never pooled with a named host, even with the same pids in an
// overlapping window.
TEST(Hosts, RecordsWithoutHostStayApart) {
  std::string text = testing::read_file(data_path("two-hosts.jsonl"));
  for (size_t at; (at = text.find(R"("host":"beta",)")) != std::string::npos;)
    text.erase(at, std::string(R"("host":"beta",)").size());
  testing::TempFile file(text);
  std::vector<Operation> ops = aggregate(file.path());
  ASSERT_EQ(ops.size(), 1u);
  ASSERT_EQ(ops[0].runs.size(), 2u);
  Expected old_beta = kBeta;
  old_beta.host = "";
  expect_run(ops[0].runs[0], old_beta);
  expect_run(ops[0].runs[1], kAlpha);

  ReportOptions o;
  o.files = {file.path()};
  o.by_host = true;
  o.format = Format::kCsv;
  testing::Outcome r = testing::report(o);
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,host,wall_s,"
            "processes,processes_without_shim\n"
            "accounts,login,1.3,200,90,47,36,1,(no host),2.3,3,0\n"
            "accounts,login,0.7,350,100,26,14,1,alpha,2,3,0\n");
}

}  // namespace
}  // namespace account
