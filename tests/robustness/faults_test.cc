// Faults in the record file: a truncated last line (a writer killed mid-line,
// a full disk) followed by many processes appending at the same moment.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "robustness.h"

namespace account::testing {
namespace {

// Three good records and a truncated fourth line, then 200 processes (and
// their parent) exit at once, each appending a record longer than PIPE_BUF.
// Every appended record parses (none interleaved, none glued to the truncated
// line), the truncated line is the only bad one, and `account report` names it
// and exits 2.
TEST(RobustnessFaults, TruncatedLastLineThenTwoHundredConcurrentAppends) {
  TempDir dir;
  std::string file = dir.file("records.jsonl");
  ShimRun seed = run_with_shim(dir, {"/bin/sh", "-c", "/bin/true; /bin/true; :"});
  ASSERT_EQ(seed.records.processes.size(), 3u) << dump(seed);
  std::string good = slurp(file);
  std::string last = good.substr(0, good.find('\n') + 1);
  {
    std::ofstream out(file, std::ios::app);
    out << last.substr(0, last.size() / 2);  // no newline: a writer died here
  }
  std::string padding(6000, 'p');
  ShimRun run =
      run_with_shim(dir, {robustness_program("append_storm"), "200", padding}, {}, 205, 10);
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  EXPECT_EQ(run.result.err, "");
  RecordFile f = read_records(file);
  ASSERT_EQ(f.bad_lines.size(), 1u) << ::testing::PrintToString(f.bad_lines);
  EXPECT_EQ(f.bad_lines[0].substr(0, 3), "4: ") << f.bad_lines[0];
  EXPECT_EQ(f.processes.size(), 3u + 201) << "records lost or glued together";
  long long parent = value_after(run.result.out, "pid");
  std::set<int64_t> pids;
  size_t children = 0;
  for (size_t i = 3; i < f.processes.size(); ++i) {
    const auto& r = f.processes[i];
    EXPECT_TRUE(pids.insert(r.pid).second) << "pid " << r.pid << " twice";
    ASSERT_EQ(r.argv.size(), 3u);
    EXPECT_EQ(r.argv[2], padding);
    if (r.pid != parent) {
      ++children;
      EXPECT_EQ(r.ppid, parent);
      EXPECT_EQ(r.end, "exit");
    }
  }
  EXPECT_EQ(children, 200u);

  ProgramOptions o;
  o.env = clean_env();
  ProgramResult report = run_program({ACCOUNT_CLI_PATH, "report", file}, o);
  EXPECT_EQ(report.status, 2) << report.err;
  EXPECT_EQ(report.err.rfind(file + ":4: ", 0), 0u) << report.err;
  EXPECT_NE(report.err.find("\naccount: skipped 1 bad line; 204 records read\n"), std::string::npos)
      << report.err;
  EXPECT_NE(report.out.find("Operation"), std::string::npos) << report.out;
}

}  // namespace
}  // namespace account::testing
