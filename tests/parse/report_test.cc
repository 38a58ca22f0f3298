// account report: every format against golden files, --by process,
// --percentiles, and every kind of bad input with its message and exit status.
#include "commands/report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "comma_list.h"
#include "commands/compare.h"
#include "compare/compare_table.h"
#include "golden.h"
#include "report_tables.h"

namespace account {
namespace {

using testing::data_path;
using testing::expect_golden;
using testing::Outcome;

ReportOptions options_for(const std::string& file, Format format = Format::kTable) {
  ReportOptions o;
  o.files = {data_path(file)};
  o.format = format;
  return o;
}

TEST(CommaList, EveryItemEmptyOnesIncluded) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(comma_list("cpu=5%,wall=10%"), (V{"cpu=5%", "wall=10%"}));
  EXPECT_EQ(comma_list("one"), (V{"one"}));
  EXPECT_EQ(comma_list(""), (V{""}));
  EXPECT_EQ(comma_list("a,,b,"), (V{"a", "", "b", ""}));
}

TEST(Report, Table) {
  Outcome o = testing::report(options_for("ops.jsonl"));
  EXPECT_EQ(o.status, 0);
  EXPECT_TRUE(o.err.empty());
  expect_golden("ops.table.txt", o.out);
}

TEST(Report, Csv) {
  Outcome o = testing::report(options_for("ops.jsonl", Format::kCsv));
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(
      o.out.substr(0, o.out.find('\n')),
      "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,processes,"
      "processes_without_shim");
  expect_golden("ops.csv", o.out);
}

TEST(Report, Json) {
  Outcome o = testing::report(options_for("ops.jsonl", Format::kJson));
  EXPECT_EQ(o.status, 0);
  expect_golden("ops.json", o.out);
}

TEST(Report, Markdown) {
  Outcome o = testing::report(options_for("ops.jsonl", Format::kMarkdown));
  EXPECT_EQ(o.status, 0);
  expect_golden("ops.md", o.out);
}

TEST(Report, NoRunsColumnWhenEveryOperationRanOnce) {
  Outcome o = testing::report(options_for("a.jsonl"));
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out,
            "                                     Maximum (MiB)     Copied   Malloc\n"
            "     *Test*     Operation  CPU(s)   Size  Resident     (MiB)    (MiB)\n"
            "--------------- ---------  ------  -------  -------   -------  -------\n"
            "alpha           add          1.00    10.00     5.00       4.0      8.0\n"
            "alpha           commit       2.00    20.00    10.00       0.0     16.0\n"
            "\n"
            "beta            checkout     0.00    30.00    15.00       0.0      0.0\n");
}

TEST(Report, SeveralFilesAreOneInput) {
  ReportOptions o;
  o.files = {data_path("a.jsonl"), data_path("c.jsonl")};
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  // alpha/add is in both files, without tree records: one run of both processes.
  EXPECT_NE(r.out.find("alpha           add          3.00    10.00     5.00       8.0     12.0\n"),
            std::string::npos)
      << r.out;
}

TEST(Report, ByProcess) {
  ReportOptions o = options_for("ops.jsonl");
  o.by_process = true;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  expect_golden("ops.by-process.txt", r.out);
  o.format = Format::kCsv;
  expect_golden("ops.by-process.csv", testing::report(o).out);
}

// An unlabelled run's operation is its command line, thousands of characters
// for a test suite's: the text table shows 60 of them (its start, "…", its
// end), so its lines stay as wide as the table's; CSV carries it whole (217
// thousand processes of git's test suite made a 3.5 GB table of 16-KB lines).
TEST(Report, ALongCommandLineIsCutInTheTableOnly) {
  std::string args = "--opt-" + std::string(3000, 'x') + "-end";
  // ops.jsonl's first record, unlabelled, with the long command line.
  std::ifstream in(data_path("ops.jsonl"));
  std::string record;
  std::getline(in, record);
  std::string labels = R"("argv":["git","add","."],"test":"alpha","op":"add")";
  ASSERT_NE(record.find(labels), std::string::npos);
  record.replace(record.find(labels), labels.size(),
                 R"("argv":["prog",")" + args + R"("],"test":"","op":"")");
  testing::TempFile file(record + "\n");
  ReportOptions o;
  o.files = {file.path()};
  o.by_process = true;
  Outcome table = testing::report(o);
  ASSERT_EQ(table.status, 0);
  std::string cut = "prog --opt-" + std::string(28, 'x') + "\u2026" + std::string(16, 'x') + "-end";
  EXPECT_NE(table.out.find("  " + cut + "  "), std::string::npos) << table.out;
  std::istringstream lines(table.out);
  for (std::string line; std::getline(lines, line);) EXPECT_LT(line.size(), 200u) << line;
  o.format = Format::kCsv;
  Outcome csv = testing::report(o);
  EXPECT_NE(csv.out.find("prog " + args), std::string::npos);
}

// A run named by a long command line (git's test suite: a 16-K shell snippet
// over 217 thousand process rows) keeps one copy of the name for all its rows.
TEST(Report, AnOperationsProcessRowsShareOneCopyOfItsName) {
  std::vector<Operation> ops(1);
  ops[0].op = "sh -c " + std::string(16384, 'x');
  ops[0].unlabelled = true;
  ops[0].runs.resize(2);
  ops[0].runs[0].process_rows.resize(3);
  ops[0].runs[1].process_rows.resize(2);
  Table t = process_table(ops);
  ASSERT_EQ(t.rows.size(), 5u);
  const std::string& first = t.rows[0].cells[1].text.str();
  EXPECT_EQ(first, ops[0].op);
  for (const Row& r : t.rows) EXPECT_EQ(&r.cells[1].text.str(), &first);
}

TEST(Report, PercentilesOfWallTime) {
  ReportOptions o = options_for("ops.jsonl");
  o.percentiles = Metric::kWall;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  expect_golden("ops.percentiles-wall.txt", r.out);
  // beta/checkout ran 1 s, 2 s and 3 s.
  EXPECT_NE(r.out.find("beta                    checkout           3    1.000    2.000    2.000    "
                       "2.200    2.400    2.600    2.800    2.980    3.000\n"),
            std::string::npos)
      << r.out;
}

// Wall is end_ns - start_ns, the command's own span: processes that outlived the
// command (tree_end_ns, absent in older records like ops.jsonl) change nothing.
TEST(Report, WallIgnoresTheLifeOfWhatOutlivedTheCommand) {
  std::string records = testing::read_file(data_path("ops.jsonl")), with_key;
  std::regex tree_end(R"re(("kind":"tree".*"end_ns":(\d+)))re");
  size_t trees = 0;
  for (size_t at = 0, nl; at < records.size(); at = nl + 1) {
    nl = records.find('\n', at);
    std::string line = records.substr(at, nl - at);
    std::smatch m;
    if (std::regex_search(line, m, tree_end)) {
      line.insert(line.size() - 1,
                  fmt::format(",\"tree_end_ns\":{}", std::stoull(m[2]) + 60000000000ull));
      ++trees;
    }
    with_key += line + "\n";
  }
  ASSERT_GT(trees, 0u);
  testing::TempFile file(with_key);
  ReportOptions o;
  o.files = {file.path()};
  o.percentiles = Metric::kWall;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(r.err.empty());
  expect_golden("ops.percentiles-wall.txt", r.out);
}

TEST(Report, PercentilesOfCpuAsCsv) {
  ReportOptions o = options_for("ops.jsonl", Format::kCsv);
  o.percentiles = Metric::kCpu;
  expect_golden("ops.percentiles-cpu.csv", testing::report(o).out);
}

TEST(Report, PercentileIsLinearBetweenClosestRanks) {
  std::vector<double> v;
  for (int i = 10; i >= 1; --i) v.push_back(i);  // 1..10, unsorted
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 5.5);
  EXPECT_DOUBLE_EQ(percentile(v, 90), 9.1);
  EXPECT_DOUBLE_EQ(percentile(v, 99), 9.91);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 10);
  EXPECT_DOUBLE_EQ(percentile({7}, 60), 7);
}

// --columns +anon: Anon after Resident in the Maximum section of the text table,
// after every other column in CSV (the default header stays a prefix).
ReportOptions with_anon(Format format = Format::kTable) {
  ReportOptions o = options_for("anon.jsonl", format);
  o.columns.figures = {Metric::kAnon};
  return o;
}

TEST(Report, AnonColumnInTheTable) {
  Outcome o = testing::report(with_anon());
  EXPECT_EQ(o.status, 0);
  EXPECT_TRUE(o.err.empty());
  // compile: the tree's concurrent 38.5 MiB; link: ld's own 60.25 MiB, above its
  // tree's 50; strip: a record without the key, unknown (not 0).
  EXPECT_EQ(
      o.out,
      "                                              Maximum (MiB)     Copied   Malloc\n"
      "     *Test*     Operation  CPU(s)   Size  Resident    Anon      (MiB)    (MiB)\n"
      "--------------- ---------  ------  -------  -------  -------   -------  -------\n"
      "build           compile      1.55   120.00    52.00    38.50       4.0     22.0\n"
      "build           link         0.50   210.00    95.00    60.25      16.0      8.0\n"
      "build           strip        0.05    10.00     4.00        \u2013       1.0      0.5\n");
}

TEST(Report, AnonColumnInCsvComesAfterTheDefaultHeader) {
  Outcome o = testing::report(with_anon(Format::kCsv));
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out,
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,"
            "processes,processes_without_shim,anon_mib\n"
            "build,compile,1.55,120,52,4,22,1,2,3,0,38.5\n"
            "build,link,0.5,210,95,16,8,1,1,1,0,60.25\n"
            "build,strip,0.05,10,4,1,0.5,1,0.1,1,0,\n");
  // Without --columns the same input has today's header and nothing more.
  std::string plain = testing::report(options_for("anon.jsonl", Format::kCsv)).out;
  EXPECT_EQ(
      plain.substr(0, plain.find('\n')),
      "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,processes,"
      "processes_without_shim");
}

TEST(Report, AnonColumnInJsonAndMarkdown) {
  std::string json = testing::report(with_anon(Format::kJson)).out;
  EXPECT_NE(json.find(R"("processes": 3, "processes_without_shim": 0, "anon_mib": 38.5},)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("processes": 1, "processes_without_shim": 0, "anon_mib": null})"),
            std::string::npos)
      << json;
  EXPECT_EQ(testing::report(with_anon(Format::kMarkdown)).out,
            "| Test | Operation | CPU (s) | Max size (MiB) | Max resident (MiB) | Max anon (MiB) "
            "| Copied (MiB) | Malloc (MiB) |\n"
            "| :--- | :--- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
            "| build | compile | 1.55 | 120.00 | 52.00 | 38.50 | 4.0 | 22.0 |\n"
            "| build | link | 0.50 | 210.00 | 95.00 | 60.25 | 16.0 | 8.0 |\n"
            "| build | strip | 0.05 | 10.00 | 4.00 | \u2013 | 1.0 | 0.5 |\n");
}

TEST(Report, AnonColumnByProcess) {
  ReportOptions o = with_anon();
  o.by_process = true;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("build           compile      1.30    80.00    40.00    30.00       3.0     "
                       "20.0    1   11  exit  cc1      cc1\n"),
            std::string::npos)
      << r.out;
  o.format = Format::kCsv;
  std::string csv = testing::report(o).out;
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,run,pid,end,program,"
            "argv0,anon_mib");
  EXPECT_NE(csv.find("build,link,0.5,210,95,16,8,1,13,exit,ld,ld,60.25\n"), std::string::npos)
      << csv;
}

TEST(Report, ParseColumns) {
  std::string error;
  auto anon = parse_columns("+anon", &error);
  ASSERT_TRUE(anon) << error;
  EXPECT_EQ(anon->figures, std::vector<Metric>{Metric::kAnon});
  EXPECT_TRUE(parse_columns("+anon,+anon", &error));
  EXPECT_FALSE(parse_columns("+rss", &error));
  EXPECT_EQ(error,
            "--columns '+rss': unknown column 'rss' (known: +anon, +heap, +faults, +ctxsw, +io, "
            "+cgroup, +leaked, +temporary, +exit)");
  EXPECT_FALSE(parse_columns("anon", &error));
  EXPECT_EQ(error,
            "--columns 'anon': 'anon' is not +NAME (known: +anon, +heap, +faults, +ctxsw, +io, "
            "+cgroup, +leaked, +temporary, +exit)");
  EXPECT_FALSE(parse_columns("+anon,", &error));
  EXPECT_EQ(error,
            "--columns '+anon,': '' is not +NAME (known: +anon, +heap, +faults, +ctxsw, +io, "
            "+cgroup, +leaked, +temporary, +exit)");
  EXPECT_FALSE(parse_columns("", &error));
}

TEST(Report, BadLinesAreNamedSkippedAndCounted) {
  Outcome o = testing::report(options_for("bad.jsonl"));
  EXPECT_EQ(o.status, 2);
  std::string f = data_path("bad.jsonl");
  EXPECT_EQ(o.err, (std::vector<std::string>{
                       f + ":2: not JSON (syntax error)",
                       f + ":3: not a JSON object",
                       f + ":4: \"pid\" is not an integer",
                       f + ":5: missing key \"exe\"",
                       f + ":6: unknown schema 0",
                       f + ":7: \"end\" is \"vanished\", not exit, exec, signal, killed or running",
                       f + ":10: truncated last line (no newline): not JSON (incomplete JSON)",
                       "account: skipped 7 bad lines; 2 records read",
                   }));
  // Both valid records (pid 600 and 601) are in the row.
  EXPECT_EQ(o.out,
            "                                     Maximum (MiB)     Copied   Malloc\n"
            "     *Test*     Operation  CPU(s)   Size  Resident     (MiB)    (MiB)\n"
            "--------------- ---------  ------  -------  -------   -------  -------\n"
            "t               op           0.30     2.00     2.00       3.0      3.0\n");
}

TEST(Report, StrictStopsAtTheFirstBadLine) {
  ReportOptions o = options_for("bad.jsonl");
  o.strict = true;
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, (std::vector<std::string>{data_path("bad.jsonl") + ":2: not JSON (syntax error)",
                                             "account: stopped at the first bad line (--strict)"}));
}

TEST(Report, NothingReadableIsStatusOne) {
  Outcome o = testing::report(options_for("all-bad.jsonl"));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  std::string f = data_path("all-bad.jsonl");
  EXPECT_EQ(o.err, (std::vector<std::string>{
                       f + ":1: not JSON (syntax error)", f + ":2: missing key \"pid\"",
                       "account: no valid record in " + f + " (2 bad lines)"}));
}

TEST(Report, EmptyInputPrintsTheHeaderAndANote) {
  Outcome o = testing::report(options_for("empty.jsonl"));
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.out,
            "                                     Maximum (MiB)     Copied   Malloc\n"
            "     *Test*     Operation  CPU(s)   Size  Resident     (MiB)    (MiB)\n"
            "--------------- ---------  ------  -------  -------   -------  -------\n");
  EXPECT_EQ(o.err, (std::vector<std::string>{"account: " + data_path("empty.jsonl") +
                                             ": no records in this input"}));
  EXPECT_EQ(testing::report(options_for("empty.jsonl", Format::kJson)).out, "[]\n");
  EXPECT_EQ(testing::report(options_for("empty.jsonl", Format::kCsv)).out,
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,"
            "processes,processes_without_shim\n");
}

TEST(Report, AFileThatCannotBeOpenedFailsBeforeAnyOutput) {
  ReportOptions o;
  o.files = {data_path("ops.jsonl"), "/nonexistent/run.jsonl"};
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, (std::vector<std::string>{
                       "account: /nonexistent/run.jsonl: cannot open: No such file or directory"}));
}

TEST(Report, ADirectoryIsUnreadable) {
  ReportOptions o;
  o.files = {"/"};
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, (std::vector<std::string>{"account: /: cannot read: Is a directory"}));
}

// Issue 33 point 7: records of a newer schema are one line for the file, not
// one a record, and exit status 1 (nothing of the file is read as this schema).
TEST(Report, ANewerSchemaIsOneLineAndStatusOne) {
  std::string ops = testing::read_file(data_path("ops.jsonl"));
  std::string newer = std::regex_replace(ops, std::regex("\"schema\":1"), "\"schema\":2");
  ASSERT_NE(newer, ops);
  testing::TempFile file(newer);
  ReportOptions o;
  o.files = {file.path()};
  Outcome out = testing::report(o);
  EXPECT_EQ(out.status, 1);
  EXPECT_EQ(out.err,
            std::vector<std::string>{"account: " + file.path() +
                                     " holds schema 2 records; this account reads schema 1"});
  EXPECT_EQ(out.out, "");
}

// Issue 33 point 7: sums stop at the largest count instead of wrapping round.
TEST(Report, ByteSumsSaturate) {
  std::string big = std::to_string(UINT64_MAX - 10);
  std::string line = testing::read_file(data_path("ops.jsonl"));
  line = line.substr(0, line.find('\n'));
  line = std::regex_replace(line, std::regex("\"malloc_bytes\":[0-9]+"), "\"malloc_bytes\":" + big);
  testing::TempFile file(line + "\n" + line + "\n");
  ReportOptions o;
  o.files = {file.path()};
  o.format = Format::kJson;
  Outcome out = testing::report(o);
  EXPECT_EQ(out.status, 0);
  // Two processes of one run: 2 * (2^64 - 11) saturates at 2^64 - 1 bytes.
  EXPECT_NE(out.out.find(fmt::format("\"malloc_mib\": {}", double(UINT64_MAX) / 1048576.0)),
            std::string::npos)
      << out.out;
}

// Issue 33 point 7: text and Markdown rows stay one line whatever argv holds;
// CSV cells a spreadsheet would run as formulas start with '; Markdown escapes
// HTML and pipes.
TEST(Report, TextFromRecordsIsEscapedForEachFormat) {
  std::string line = testing::read_file(data_path("ops.jsonl"));
  line = line.substr(0, line.find('\n'));
  auto labelled = [&](const std::string& test, const std::string& op) {
    std::string l = std::regex_replace(line, std::regex("\"test\":\"[^\"]*\""), "\"test\":" + test);
    return std::regex_replace(l, std::regex("\"op\":\"[^\"]*\""), "\"op\":" + op);
  };
  testing::TempFile file(labelled(R"("a\nb\tc")", R"("\u001b[31mred\r")") + "\n" +
                         labelled(R"x("=HYPERLINK(1)")x", R"x("<b>x|y</b>")x") + "\n" +
                         labelled(R"x("-1+1")x", R"x("@SUM(A1)")x") + "\n");
  ReportOptions o;
  o.files = {file.path()};
  Outcome table = testing::report(o);
  EXPECT_EQ(table.status, 0);
  EXPECT_NE(table.out.find("a\\nb\\tc"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\\x1b[31mred\\r"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(table.out.find('\r'), std::string::npos);
  EXPECT_EQ(table.out.find('\t'), std::string::npos);
  // Three header lines, three rows, two blank lines between the tests.
  EXPECT_EQ(std::count(table.out.begin(), table.out.end(), '\n'), 8) << table.out;

  o.format = Format::kCsv;
  Outcome csv = testing::report(o);
  EXPECT_NE(csv.out.find("\n'=HYPERLINK(1),<b>x|y</b>,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("\n'-1+1,'@SUM(A1),"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("\n\"a\nb\tc\",\"\x1b[31mred\r\","), std::string::npos) << csv.out;

  o.format = Format::kMarkdown;
  Outcome md = testing::report(o);
  EXPECT_NE(md.out.find("| =HYPERLINK(1) | &lt;b&gt;x\\|y&lt;/b&gt; |"), std::string::npos)
      << md.out;
  EXPECT_NE(md.out.find("| a\\nb\\tc | \\x1b[31mred\\r |"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find('<'), std::string::npos);

  o.format = Format::kJson;
  Outcome json = testing::report(o);
  EXPECT_NE(json.out.find(R"("test": "a\nb\tc")"), std::string::npos) << json.out;
}

}  // namespace
}  // namespace account
