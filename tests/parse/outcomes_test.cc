// One record set, every command and format: the same runs counted and the
// same figures everywhere (issue 33.1). outcomes.jsonl holds
//   srv/serve on alpha: stopped by its stop signal (SIGTERM): CPU 0.5, 100/40 MiB;
//   srv/serve on beta:  exit 0: CPU 0.7, 120/50 MiB;
//   srv/clone on alpha: exit 0 (CPU 0.3), exit 128 (0.01), interrupted by SIGINT (0.02);
//   srv/static on alpha: exit 0, its one process ran without the shim (a tree
//     record only, processes_without_shim 1): CPU 0.1, 2/1 MiB, Copied and
//     Malloc unknown (issue 33.3);
//   an unlabelled `make all` on alpha, no tree record: exit 0, CPU 0.2.
// Counted: both serve runs, one clone run, static, make; failed: the two other clones.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "commands/compare.h"
#include "commands/export.h"
#include "commands/report.h"
#include "compare/compare_table.h"
#include "golden.h"
#include "report_tables.h"

namespace account {
namespace {

using testing::data_path;
using testing::Outcome;

ReportOptions outcomes(Format format) {
  ReportOptions o;
  o.files = {data_path("outcomes.jsonl")};
  o.format = format;
  return o;
}

Outcome exported(ExportFormat format) {
  ExportOptions o;
  o.files = {data_path("outcomes.jsonl")};
  o.format = format;
  Outcome e;
  e.status = run_export(o, &e.out, [&](const std::string& m) { e.err.push_back(m); });
  return e;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Every report format: the same rows, runs and how they ended; exit 4 (failed runs seen).
TEST(Outcomes, EveryReportFormatCountsTheSameRuns) {
  Outcome table = testing::report(outcomes(Format::kTable));
  EXPECT_EQ(table.status, 4);
  EXPECT_TRUE(has(table.out,
                  "srv             serve        0.60   110.00    45.00       2.0      3.0     2  "
                  "stopped (SIGTERM), exit 0\n"))
      << table.out;
  EXPECT_TRUE(has(table.out,
                  "srv             clone        0.30    80.00    30.00       5.0      6.0     1  "
                  "2 of 3 failed: exit 128, interrupted (signal 2)\n"))
      << table.out;
  EXPECT_TRUE(
      has(table.out,
          "srv             static       0.10     2.00     1.00         \u2013        \u2013     1  "
          "exit 0\n"))
      << table.out;
  EXPECT_TRUE(has(table.out,
                  "                make all     0.20    10.00     5.00       7.0      8.0     1  "
                  "exit 0\n"))
      << table.out;

  Outcome csv = testing::report(outcomes(Format::kCsv));
  EXPECT_EQ(csv.status, 4);
  EXPECT_EQ(csv.out,
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,"
            "processes,processes_without_shim,failed_runs,exit\n"
            "srv,serve,0.6,110,45,2,3,2,11.000002,1,0,0,\"stopped (SIGTERM), exit 0\"\n"
            "srv,clone,0.3,80,30,5,6,1,1.000002,1,0,2,\"2 of 3 failed: exit 128, interrupted "
            "(signal 2)\"\n"
            "srv,static,0.1,2,1,,,1,0.5,1,1,0,exit 0\n"
            ",make all,0.2,10,5,7,8,1,0.999999,1,0,0,exit 0\n");

  Outcome json = testing::report(outcomes(Format::kJson));
  EXPECT_EQ(json.status, 4);
  EXPECT_TRUE(has(json.out,
                  R"({"test": "srv", "operation": "serve", "cpu_s": 0.6, "size_mib": 110, )"
                  R"("resident_mib": 45, "copied_mib": 2, "malloc_mib": 3, "runs": 2, )"))
      << json.out;
  EXPECT_TRUE(has(json.out, R"({"test": "srv", "operation": "static", "cpu_s": 0.1, )"
                            R"("size_mib": 2, "resident_mib": 1, "copied_mib": null, )"
                            R"("malloc_mib": null, "runs": 1, "wall_s": 0.5, "processes": 1, )"
                            R"("processes_without_shim": 1, "failed_runs": 0, "exit": "exit 0"})"))
      << json.out;
  EXPECT_TRUE(
      has(json.out,
          R"("runs": 2, "wall_s": 11.000002, "processes": 1, )"
          R"("processes_without_shim": 0, "failed_runs": 0, "exit": "stopped (SIGTERM), exit 0"})"))
      << json.out;
  EXPECT_TRUE(has(json.out, R"("cpu_s": 0.3, "size_mib": 80, "resident_mib": 30, )"
                            R"("copied_mib": 5, "malloc_mib": 6, "runs": 1, )"))
      << json.out;

  Outcome md = testing::report(outcomes(Format::kMarkdown));
  EXPECT_EQ(md.status, 4);
  EXPECT_TRUE(has(md.out,
                  "| srv | serve | 0.60 | 110.00 | 45.00 | 2.0 | 3.0 | 2 | "
                  "stopped (SIGTERM), exit 0 |\n"))
      << md.out;
  EXPECT_TRUE(has(md.out,
                  "| srv | clone | 0.30 | 80.00 | 30.00 | 5.0 | 6.0 | 1 | "
                  "2 of 3 failed: exit 128, interrupted (signal 2) |\n"))
      << md.out;
  EXPECT_TRUE(has(md.out, "| srv | static | 0.10 | 2.00 | 1.00 | \u2013 | \u2013 | 1 | exit 0 |\n"))
      << md.out;

  Outcome html = testing::report(outcomes(Format::kHtml));
  EXPECT_EQ(html.status, 4);
  EXPECT_TRUE(has(html.out, "stopped (SIGTERM), exit 0")) << html.out.substr(0, 2000);
  EXPECT_TRUE(has(html.out, "2 of 3 failed: exit 128, interrupted (signal 2)"));
  EXPECT_TRUE(
      has(html.out,
          "<td class=\"\">srv</td><td class=\"\">static</td><td class=\"num\">0.10</td>"
          "<td class=\"num\">2.00</td><td class=\"num\">1.00</td><td class=\"num\">\u2013</td>"
          "<td class=\"num\">\u2013</td>"))
      << html.out;
}

// compare counts the runs report counts, on both sides, and says how many
// processes ran without the shim as report's CSV does (processes_without_shim).
TEST(Outcomes, CompareCountsTheSameRuns) {
  CompareOptions o;
  o.files = {data_path("outcomes.jsonl"), data_path("outcomes.jsonl")};
  o.names = {"a", "b"};
  o.format = Format::kCsv;
  Outcome c = testing::compare(o);
  EXPECT_EQ(c.status, 4);
  for (const char* side : {"a", "b"}) {
    SCOPED_TRACE(side);
    EXPECT_TRUE(has(c.out, fmt::format("srv,serve,{},value,0.6,110,45,2,3,2,0,,0,"
                                       "\"stopped (SIGTERM), exit 0\",",
                                       side)))
        << c.out;
    EXPECT_TRUE(has(c.out, fmt::format("srv,clone,{},value,0.3,80,30,5,6,1,0,,2,", side))) << c.out;
    EXPECT_TRUE(has(c.out, fmt::format(",make all,{},value,0.2,10,5,7,8,1,0,,0,exit 0,", side)))
        << c.out;
    EXPECT_TRUE(has(c.out, fmt::format("srv,static,{},value,0.1,2,1,,,1,1,,0,exit 0,", side)))
        << c.out;
  }
}

// OpenMetrics (also what watch --textfile and --push publish) holds the
// medians of `report --by host`: the same runs counted, the failed ones apart.
TEST(Outcomes, OpenMetricsCountsTheReportsRuns) {
  Outcome e = exported(ExportFormat::kOpenMetrics);
  EXPECT_EQ(e.status, 0);
  std::map<std::string, std::string> m;
  std::istringstream lines(e.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#')
      m[line.substr(0, line.rfind(' '))] = line.substr(line.rfind(' ') + 1);
  auto at = [&](const char* family, const char* test, const char* op, const char* host) {
    return m[fmt::format("{}{{test=\"{}\",operation=\"{}\",host=\"{}\"}}", family, test, op, host)];
  };
  EXPECT_EQ(at("account_cpu_seconds", "srv", "serve", "alpha"), "0.5");  // the stopped run
  EXPECT_EQ(at("account_cpu_seconds", "srv", "serve", "beta"), "0.7");
  EXPECT_EQ(at("account_cpu_seconds", "srv", "clone", "alpha"),
            "0.3");  // not the failed 0.01, 0.02
  EXPECT_EQ(at("account_cpu_seconds", "", "make all", "alpha"), "0.2");
  EXPECT_EQ(at("account_size_bytes", "srv", "serve", "alpha"), "104857600");
  EXPECT_EQ(at("account_malloc_bytes", "srv", "clone", "alpha"), "6291456");
  EXPECT_EQ(at("account_runs", "srv", "serve", "alpha"), "1");
  EXPECT_EQ(at("account_runs", "srv", "serve", "beta"), "1");
  EXPECT_EQ(at("account_runs", "srv", "clone", "alpha"), "1");
  EXPECT_EQ(at("account_failed_runs", "srv", "clone", "alpha"), "2");
  EXPECT_EQ(at("account_failed_runs", "srv", "serve", "alpha"), "0");
  // Nobody counted srv/static's copies and allocations: absent, not 0.
  EXPECT_EQ(at("account_cpu_seconds", "srv", "static", "alpha"), "0.1");
  EXPECT_EQ(m.count("account_copied_bytes{test=\"srv\",operation=\"static\",host=\"alpha\"}"), 0u);
  EXPECT_EQ(m.count("account_malloc_bytes{test=\"srv\",operation=\"static\",host=\"alpha\"}"), 0u);

  ReportOptions by_host = outcomes(Format::kCsv);
  by_host.by_host = true;
  Outcome csv = testing::report(by_host);
  EXPECT_TRUE(has(csv.out, "srv,serve,0.5,100,40,1,2,1,alpha,10.000002,1,0,0,stopped (SIGTERM)\n"))
      << csv.out;
  EXPECT_TRUE(has(csv.out, "srv,serve,0.7,120,50,3,4,1,beta,12.000002,1,0,0,exit 0\n")) << csv.out;
}

// chrome-trace shows every run, each saying how it ended and whether it counts.
TEST(Outcomes, ChromeTraceSaysWhichRunsCount) {
  Outcome e = exported(ExportFormat::kChromeTrace);
  EXPECT_EQ(e.status, 0);
  auto count = [&](const std::string& part) {
    size_t n = 0;
    for (size_t at = e.out.find(part); at != std::string::npos; at = e.out.find(part, at + 1)) ++n;
    return n;
  };
  // A slice for every run (six with a tree record, one of processes only),
  // srv/static's too: its tree record is all it has.
  EXPECT_EQ(count(R"("cat":"run")"), 7u);
  EXPECT_EQ(count(R"("counted":true)"), 4u + 1u);
  EXPECT_EQ(count(R"("processes_without_shim":1)"), 1u);
  EXPECT_EQ(count(R"("counted":false)"), 2u);
  EXPECT_EQ(count(R"x("end":"stopped (SIGTERM)","counted":true)x"), 1u) << e.out;
  EXPECT_EQ(count(R"("end":"exit 128","counted":false)"), 1u);
  EXPECT_EQ(count(R"x("end":"interrupted (signal 2)","counted":false)x"), 1u);
}

// folded and pprof read the same records without complaint (no backtraces here).
TEST(Outcomes, FoldedAndPprofReadTheSameSet) {
  Outcome folded = exported(ExportFormat::kFolded);
  EXPECT_EQ(folded.status, 0);
  EXPECT_EQ(folded.out, "");
  Outcome pprof = exported(ExportFormat::kPprof);
  EXPECT_EQ(pprof.status, 0);
  EXPECT_FALSE(pprof.out.empty());
}

}  // namespace
}  // namespace account
