// The account binary's report and compare: standard input, option spelling,
// usage errors and exit statuses as a shell sees them.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>

#include "golden.h"

namespace account {
namespace {

using testing::data_path;

using testing::Shell;

Shell account(const std::string& args) {
  return testing::run_account(ACCOUNT_CLI, args);
}

TEST(Cli, StandardInputAsDashAndByDefault) {
  std::string expected = testing::read_file(std::string(PARSE_TEST_DIR) + "/golden/ops.table.txt");
  Shell dash = account("report - < ops.jsonl");
  EXPECT_EQ(dash.status, 0);
  EXPECT_EQ(dash.out, expected);
  Shell none = account("report < ops.jsonl");
  EXPECT_EQ(none.out, expected);
}

TEST(Cli, PercentilesKeyAsASeparateWordOrAfterEquals) {
  std::string expected =
      testing::read_file(std::string(PARSE_TEST_DIR) + "/golden/ops.percentiles-cpu.csv");
  EXPECT_EQ(account("report --percentiles cpu ops.jsonl --format csv").out, expected);
  EXPECT_EQ(account("report --percentiles=cpu -f csv ops.jsonl").out, expected);
  std::string wall =
      testing::read_file(std::string(PARSE_TEST_DIR) + "/golden/ops.percentiles-wall.txt");
  EXPECT_EQ(account("report ops.jsonl --percentiles").out, wall);
  EXPECT_EQ(account("report --percentiles ops.jsonl").out, wall);  // a file, not a KEY
}

TEST(Cli, ExitStatuses) {
  Shell bad = account("report bad.jsonl");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.substr(0, bad.err.find('\n')), "bad.jsonl:2: not JSON (syntax error)");
  EXPECT_EQ(account("report --strict bad.jsonl").status, 1);
  EXPECT_EQ(account("report all-bad.jsonl").status, 1);
  Shell missing = account("report nonexistent.jsonl");
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "account: nonexistent.jsonl: cannot open: No such file or directory\n");
  EXPECT_EQ(account("compare a.jsonl bad.jsonl").status, 2);
}

TEST(Cli, UsageErrors) {
  Shell format = account("report --format xml ops.jsonl");
  EXPECT_EQ(format.status, 1);
  EXPECT_EQ(format.err, "account: unknown format 'xml': use table, csv, json, markdown or html\n");
  Shell key = account("report --percentiles=latency ops.jsonl");
  EXPECT_EQ(key.status, 1);
  EXPECT_EQ(key.err,
            "account: report: --percentiles: unknown metric 'latency' (known: wall, cpu, size, "
            "resident, anon, heap, copied, malloc, minor_faults, major_faults, voluntary_ctxsw, "
            "involuntary_ctxsw, read, write, rchar, wchar, cgroup, pids, heap_at_exit, "
            "blocks_at_exit, temporary_allocs, temporary)\n");
  Shell one = account("compare a.jsonl");
  EXPECT_EQ(one.status, 1);
  EXPECT_EQ(one.err,
            "account: compare: needs at least two record files (try account compare --help)\n");
  Shell names = account("compare a.jsonl b.jsonl --names x");
  EXPECT_EQ(names.err, "account: compare: --names gives 1 labels for 2 files\n");
  EXPECT_EQ(account("report --by thread ops.jsonl").err,
            "account: report: --by 'thread': use process or host\n");
}

TEST(Cli, ColumnsPlusAnon) {
  Shell report = account("report anon.jsonl --columns +anon --format csv");
  EXPECT_EQ(report.status, 0);
  EXPECT_EQ(report.out.substr(0, report.out.find('\n')),
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,"
            "processes,processes_without_shim,anon_mib");
  EXPECT_NE(report.out.find("build,compile,1.55,120,52,4,22,1,2,3,0,38.5\n"), std::string::npos)
      << report.out;
  EXPECT_EQ(account("report --columns=+anon anon.jsonl").out,
            account("report anon.jsonl --columns +anon").out);
  Shell compare = account("compare anon.jsonl anon.jsonl --names x,y --columns +anon");
  EXPECT_EQ(compare.status, 0);
  EXPECT_NE(compare.out.find("Resident    Anon"), std::string::npos) << compare.out;
}

TEST(Cli, BadColumnsIsAUsageError) {
  Shell unknown = account("report anon.jsonl --columns +anon,+rss");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err,
            "account: report: --columns '+anon,+rss': unknown column 'rss' (known: +anon, +heap, "
            "+faults, +ctxsw, +io, +cgroup, +leaked, +temporary, +exit)\n");
  Shell bare = account("report anon.jsonl --columns anon");
  EXPECT_EQ(bare.status, 1);
  EXPECT_EQ(bare.err,
            "account: report: --columns 'anon': 'anon' is not +NAME (known: +anon, +heap, +faults, "
            "+ctxsw, +io, +cgroup, +leaked, +temporary, +exit)\n");
  Shell compare = account("compare a.jsonl b.jsonl --columns +rss");
  EXPECT_EQ(compare.status, 1);
  EXPECT_EQ(compare.err,
            "account: compare: --columns '+rss': unknown column 'rss' (known: +anon, +heap, "
            "+faults, +ctxsw, +io, +cgroup, +leaked, +temporary, +exit)\n");
  Shell percentiles = account("report anon.jsonl --columns +anon --percentiles cpu");
  EXPECT_EQ(percentiles.status, 1);
  EXPECT_EQ(percentiles.err, "account: report: --columns and --percentiles do not combine\n");
}

TEST(Cli, CompareNamesAndFormat) {
  Shell s = account("compare a.jsonl b.jsonl --names a,b --format csv");
  EXPECT_EQ(s.status, 0);
  EXPECT_EQ(s.out, testing::read_file(std::string(PARSE_TEST_DIR) + "/golden/compare.csv"));
}

// The gate from the command line: 3 with a line per regression, 5 for what it
// cannot judge, 1 for a metric it does not know (nothing read, nothing printed).
TEST(Cli, CompareFailOnStatuses) {
  Shell fail =
      account("compare noise-base.jsonl noise-slower.jsonl --names base,slower --fail-on cpu=5%");
  EXPECT_EQ(fail.status, 3);
  EXPECT_EQ(fail.err.rfind("account: compare: regression: clone/clone: slower vs base: cpu +21.9% "
                           "(95% interval +",
                           0),
            0u)
      << fail.err;
  // Faster, but status/status has one run a side: not judged, 5 (0 when allowed).
  Shell better =
      account("compare noise-slower.jsonl noise-base.jsonl --names slower,base --fail-on cpu=5%");
  EXPECT_EQ(better.status, 5) << better.err;
  Shell allowed = account(
      "compare noise-slower.jsonl noise-base.jsonl --names slower,base --fail-on cpu=5% "
      "--allow-unjudged");
  EXPECT_EQ(allowed.status, 0) << allowed.err;
  Shell unknown = account("compare noise-base.jsonl noise-slower.jsonl --fail-on rss=5%");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err,
            "account: compare: --fail-on 'rss=5%': unknown metric 'rss' (known: wall, cpu, size, "
            "resident, anon, heap, copied, malloc, minor_faults, major_faults, voluntary_ctxsw, "
            "involuntary_ctxsw, read, write, rchar, wchar, cgroup, pids, heap_at_exit, "
            "blocks_at_exit, temporary_allocs, temporary)\n");
}

TEST(Cli, PercentilesWithAnUnknownMetricNamesTheKnownOnes) {
  Shell rss = account("report --percentiles rss ops.jsonl");
  EXPECT_EQ(rss.status, 1);
  EXPECT_EQ(rss.out, "");
  EXPECT_EQ(rss.err,
            "account: report: --percentiles: unknown metric 'rss' (known: wall, cpu, size, "
            "resident, anon, heap, copied, malloc, minor_faults, major_faults, voluntary_ctxsw, "
            "involuntary_ctxsw, read, write, rchar, wchar, cgroup, pids, heap_at_exit, "
            "blocks_at_exit, temporary_allocs, temporary)\n");
  // A word that names a file, or that could not be a metric, is still a file.
  EXPECT_EQ(account("report --percentiles ops.jsonl").status, 0);
  Shell path = account("report --percentiles no/such.jsonl");
  EXPECT_EQ(path.status, 1);
  EXPECT_EQ(path.err, "account: no/such.jsonl: cannot open: No such file or directory\n");
}

TEST(Cli, FailedRunsExitStatusAndIncludeFailed) {
  Shell report = account("report failed.jsonl");
  EXPECT_EQ(report.status, 4);
  Shell include = account("report failed.jsonl --include-failed --format csv");
  EXPECT_EQ(include.status, 4);
  EXPECT_NE(include.out.find("clone,clone,0.01,20,4,"), std::string::npos) << include.out;
  Shell compare = account("compare fixed.jsonl failed.jsonl");
  EXPECT_EQ(compare.status, 4);
  EXPECT_EQ(compare.err,
            "account: compare: clone/gc: no change: no successful run in failed.jsonl "
            "(--include-failed counts failed runs)\n");
  // Skipped lines (2) outrank failed runs (4).
  EXPECT_EQ(account("compare bad.jsonl failed.jsonl").status, 2);
}

TEST(Cli, SortAndColumns) {
  EXPECT_EQ(account("report ops.jsonl --sort cpu").out,
            testing::read_file(std::string(PARSE_TEST_DIR) + "/golden/ops.sort-cpu.txt"));
  Shell bad = account("report ops.jsonl --sort rss");
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.err,
            "account: report: --sort: unknown metric 'rss' (known: wall, cpu, size, resident, "
            "anon, heap, copied, malloc, minor_faults, major_faults, voluntary_ctxsw, "
            "involuntary_ctxsw, read, write, rchar, wchar, cgroup, pids, heap_at_exit, "
            "blocks_at_exit, temporary_allocs, temporary)\n");
  EXPECT_EQ(account("report fixed.jsonl --columns +heap,+exit").out,
            testing::read_file(std::string(PARSE_TEST_DIR) + "/golden/fixed.heap-exit.txt"));
}

// compare --sort: an operation's rows stay together, ranked by the larger of
// the files' figures (gamma/new is only in b.jsonl, with the most CPU).
TEST(Cli, CompareSort) {
  Shell sorted = account("compare a.jsonl b.jsonl --format csv --sort cpu | cut -d, -f1-4");
  EXPECT_EQ(sorted.status, 0);
  EXPECT_EQ(sorted.out,
            "test,operation,build,row\n"
            "gamma,new,b.jsonl,value\n"
            "alpha,commit,a.jsonl,value\n"
            "alpha,add,a.jsonl,value\n"
            "alpha,add,b.jsonl,value\n"
            "alpha,add,b.jsonl vs a.jsonl,change_pct\n"
            "beta,checkout,a.jsonl,value\n"
            "beta,checkout,b.jsonl,value\n"
            "beta,checkout,b.jsonl vs a.jsonl,change_pct\n");
  Shell bad = account("compare a.jsonl b.jsonl --sort rss");
  EXPECT_EQ(bad.status, 1);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err,
            "account: compare: --sort: unknown metric 'rss' (known: wall, cpu, size, resident, "
            "anon, heap, copied, malloc, minor_faults, major_faults, voluntary_ctxsw, "
            "involuntary_ctxsw, read, write, rchar, wchar, cgroup, pids, heap_at_exit, "
            "blocks_at_exit, temporary_allocs, temporary)\n");
}

// --columns +faults,+ctxsw,+io (issue 36): the kernel's counters summed over an
// operation's processes (t/new: 1000 + 234 minor faults, 8 MiB written by one,
// 4 MiB read by the other); t/old's records have no such keys: unknown, never 0.
TEST(Cli, KernelCounterColumns) {
  Shell csv = account("report counters.jsonl --columns +faults,+ctxsw,+io --format csv");
  EXPECT_EQ(csv.status, 0);
  EXPECT_EQ(csv.out,
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,"
            "processes,processes_without_shim,minor_faults,major_faults,voluntary_ctxsw,"
            "involuntary_ctxsw,read_mib,write_mib,rchar_mib,wchar_mib\n"
            "t,new,1,1,1,0,0,1,1,2,0,1234,5,120,3,4,8,6,8\n"
            "t,old,0.5,1,1,0,0,1,1,1,0,,,,,,,,\n");
  Shell table = account("report counters.jsonl --columns +faults --sort minor_faults | tail -2");
  EXPECT_EQ(
      table.out,
      "t               new          1.00     1.00     1.00       0.0      0.0     1234       5\n"
      "t               old          0.50     1.00     1.00       0.0      0.0        \u2013       "
      "\u2013\n");
  Shell json = account("report counters.jsonl --columns +io --format json | grep old");
  EXPECT_NE(
      json.out.find(R"("read_mib": null, "write_mib": null, "rchar_mib": null, "wchar_mib": null)"),
      std::string::npos)
      << json.out;
  Shell metrics = account("export --format openmetrics counters.jsonl | grep '^account_minor'");
  EXPECT_EQ(metrics.out, "account_minor_faults{test=\"t\",operation=\"new\",host=\"\"} 1234\n");
  Shell gate = account("compare counters.jsonl counters.jsonl --fail-on major_faults=5");
  EXPECT_EQ(gate.status, 5);
  EXPECT_NE(gate.err.find("major_faults: t/old not judged: not counted in runs of counters.jsonl"),
            std::string::npos)
      << gate.err;
}

TEST(Cli, UnlabelledNote) {
  Shell s = account("report unlabelled.jsonl");
  EXPECT_EQ(s.status, 0);
  EXPECT_EQ(s.err,
            "account: 4 runs without test and op labels, grouped by command line into 3 rows; "
            "label runs with account run --test T --op O\n");
}

}  // namespace
}  // namespace account
