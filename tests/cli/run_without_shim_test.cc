// Unknown is not zero (issue 33.3): a statically linked program runs without
// the shim, so nobody counts its copies and allocations. account run records
// that (processes_without_shim), and every output says unknown: "–" in the
// table, Markdown and the run summary, empty in CSV, null in JSON, absent in
// OpenMetrics; where only some processes ran without it, a mark and a footnote.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "records.h"
#include "run_program.h"

namespace account::testing {
namespace {

// account run's one line about the processes without the shim ("1 of 1 process").
std::string without_shim_line(const std::string& count) {
  return "account run: " + count +
         " ran without the shim (static or set-user-ID programs, ones that dropped root, ones "
         "started with an LD_PRELOAD without the shim, or ones that stopped before the shim "
         "started, as an ASan build does without its runtime preloaded): their Copied and Malloc "
         "are unknown\n";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ProgramResult account(std::vector<std::string> args) {
  args.insert(args.begin(), ACCOUNT_CLI_PATH);
  return run_program(args);
}

TEST(RunWithoutShim, StaticProgramsFiguresAreUnknownNotZero) {
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  ProgramResult run =
      account({"run", "-o", out, "--test", "t", "--op", "static", "--", STATIC_PROGRAM_PATH});
  ASSERT_EQ(run.status, 0) << run.err;
  // Its copies were real (copy_calls.c makes 21,800 bytes of them), yet unknown.
  EXPECT_NE(run.err.find("copied \u2013 MiB, malloc \u2013 MiB (1 of 1 process ran without the "
                         "shim)"),
            std::string::npos)
      << run.err;
  std::string records = slurp(out);
  EXPECT_NE(records.find("\"processes_without_shim\":1,"), std::string::npos) << records;
  // account run warns once, in one line, of the process that never wrote a record.
  EXPECT_NE(run.err.find(without_shim_line("1 of 1 process")), std::string::npos) << run.err;

  ProgramResult csv = account({"report", "--format", "csv", out});
  EXPECT_EQ(csv.status, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_EQ(header.substr(0, 64),
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib");
  // test, op, cpu, size, resident, then copied and malloc empty.
  size_t at = 0;
  for (int i = 0; i < 5; ++i) at = row.find(',', at) + 1;
  EXPECT_EQ(row.substr(at, 3), ",,1") << row;

  ProgramResult json = account({"report", "--format", "json", out});
  EXPECT_NE(json.out.find("\"copied_mib\": null, \"malloc_mib\": null"), std::string::npos)
      << json.out;

  ProgramResult table = account({"report", out});
  std::string last = table.out.substr(table.out.rfind("t   "));
  EXPECT_NE(last.find("\u2013        \u2013\n"), std::string::npos) << table.out;
  EXPECT_EQ(last.find(" 0.0 "), std::string::npos) << table.out;

  ProgramResult md = account({"report", "--format", "markdown", out});
  EXPECT_NE(md.out.find("| \u2013 | \u2013 |"), std::string::npos) << md.out;

  ProgramResult om = account({"export", "--format", "openmetrics", out});
  EXPECT_EQ(om.status, 0) << om.err;
  EXPECT_EQ(om.out.find("account_copied_bytes{"), std::string::npos) << om.out;
  EXPECT_EQ(om.out.find("account_malloc_bytes{"), std::string::npos) << om.out;
  EXPECT_NE(om.out.find("account_cpu_seconds{test=\"t\",operation=\"static\""), std::string::npos)
      << om.out;

  // The gate cannot judge a figure nobody counted: exit 5, not a pass.
  ProgramResult gate = account({"compare", out, out, "--fail-on", "copied=5%"});
  EXPECT_EQ(gate.status, 5) << gate.out << gate.err;
}

// A shell that runs a static program and then execs one: two processes, and
// both ran a program without the shim (the static child, and the shell's
// process once it exec'd into the static program, which wrote no record:
// docs/record-format.md). Every line says so; the exec'd image once counted
// as a third process ("2 of 3").
TEST(RunWithoutShim, RunLineSummaryAndReportCountAlike) {
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  std::string program = STATIC_PROGRAM_PATH;
  ProgramResult run = account({"run", "-o", out, "--test", "t", "--op", "exec", "--", "sh", "-c",
                               program + " >/dev/null; exec " + program + " >/dev/null"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err.rfind("account run: 2 of 2 processes ran without the shim (", 0), 0u)
      << run.err;
  EXPECT_NE(run.err.find("(2 of 2 processes ran without the shim) -> "), std::string::npos)
      << run.err;
  ProgramResult table = account({"report", out});
  EXPECT_NE(table.out.find("\u2020 t/exec: 2 of 2 processes ran without the shim"),
            std::string::npos)
      << table.out;
  // Quiet, a second run of the operation: its line counts the same, and the
  // report's note is over both runs (before: the summed 4 of the median 3).
  ProgramResult quiet = account({"run", "-q", "-o", out, "--test", "t", "--op", "exec", "--", "sh",
                                 "-c", program + " >/dev/null; exec " + program + " >/dev/null"});
  EXPECT_EQ(quiet.err.rfind("account run: 2 of 2 processes ran without the shim (", 0), 0u)
      << quiet.err;
  table = account({"report", out});
  EXPECT_NE(table.out.find("\u2020 t/exec: 4 of 4 processes ran without the shim"),
            std::string::npos)
      << table.out;
}

TEST(RunWithoutShim, RunWarnsOnceOfProcessesThatNeverWroteARecord) {
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  // The static program, three times over: one line, even with -q.
  ProgramResult run = account({"run", "-q", "--repeat", "3", "-o", out, "--", STATIC_PROGRAM_PATH});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, without_shim_line("1 of 1 process"));
  // A run where every process had the shim says nothing.
  ProgramResult counted = account({"run", "-q", "-o", out, "--", "/bin/true"});
  EXPECT_EQ(counted.status, 0);
  EXPECT_EQ(counted.err, "");
}

TEST(RunWithoutShim, SomeProcessesWithoutTheShimGetAFootnote) {
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  // The shell has the shim and execs the static program: that image is the
  // one without it (the shell's record ends "exec", and no record follows).
  ProgramResult run = account({"run", "-q", "-o", out, "--test", "t", "--op", "mixed", "--",
                               "/bin/sh", "-c", std::string("exec ") + STATIC_PROGRAM_PATH});
  ASSERT_EQ(run.status, 0) << run.err;
  ProgramResult table = account({"report", out});
  EXPECT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("\u2020 t/mixed: 1 of 1 process ran without the shim; its Copied "
                           "and Malloc leave theirs out.\n"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("\u2020  "), std::string::npos) << table.out;  // the marked figures
  ProgramResult csv = account({"report", "--format", "csv", out});
  EXPECT_EQ(csv.out.find(",,"), std::string::npos) << csv.out;  // counted: figures, no blanks
}

// A program with a malloc of its own (own_malloc.c: a bump allocator in the
// executable) has the shim, which counts its copies but never sees its
// allocations: its record says "malloc_interposed": false, and every output
// shows Malloc and Heap unknown, never 0, while Copied is a figure.
TEST(RunWithoutShim, AProgramsOwnMallocLeavesMallocUnknownAndCopiesCounted) {
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  ProgramResult run = account(
      {"run", "-o", out, "--repeat", "4", "--test", "t", "--op", "own", "--", OWN_MALLOC_PATH});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find(" MiB, malloc \u2013 MiB (1 of 1 process had a malloc not the shim's)"),
            std::string::npos)
      << run.err;
  std::string records = slurp(out);
  EXPECT_NE(records.find("\"malloc_interposed\":false"), std::string::npos) << records;

  ProgramResult csv = account({"report", "--format", "csv", "--columns", "+heap", out});
  ASSERT_EQ(csv.status, 0) << csv.err;
  std::istringstream lines(csv.out);
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  // The optional column (+heap) last, as in every CSV.
  EXPECT_EQ(header,
            "test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,"
            "processes,processes_without_shim,processes_malloc_unseen,heap_mib");
  std::vector<std::string> cells;
  for (size_t at = 0, comma; at <= row.size(); at = comma + 1) {
    comma = std::min(row.find(',', at), row.size());
    cells.push_back(row.substr(at, comma - at));
  }
  ASSERT_EQ(cells.size(), 13u) << row;
  EXPECT_EQ(cells[6], "") << row;   // malloc
  EXPECT_EQ(cells[12], "") << row;  // heap
  // Ten memcpy calls of 100000 bytes, and what libc copies for it (under 64 KiB).
  double copied_mib = std::stod(cells[5]);
  EXPECT_GE(copied_mib, 1e6 / (1 << 20)) << row;
  EXPECT_LT(copied_mib, (1e6 + 65536) / (1 << 20)) << row;
  EXPECT_EQ(cells[10], "0") << row;
  EXPECT_EQ(cells[11], "4") << row;  // summed over the runs, as processes_without_shim is

  ProgramResult json = account({"report", "--format", "json", out});
  EXPECT_NE(json.out.find("\"malloc_mib\": null"), std::string::npos) << json.out;
  EXPECT_EQ(json.out.find("\"copied_mib\": null"), std::string::npos) << json.out;

  ProgramResult table = account({"report", out});
  std::string last = table.out.substr(table.out.rfind("t   "));
  EXPECT_NE(last.find("        \u2013     4\n"), std::string::npos) << table.out;
  EXPECT_EQ(last.find(" 0.0 "), std::string::npos) << table.out;

  ProgramResult om = account({"export", "--format", "openmetrics", out});
  EXPECT_EQ(om.status, 0) << om.err;
  EXPECT_EQ(om.out.find("account_malloc_bytes{"), std::string::npos) << om.out;
  EXPECT_NE(om.out.find("account_copied_bytes{test=\"t\",operation=\"own\""), std::string::npos)
      << om.out;

  // The gate judges the copies (four runs a side), and cannot judge the
  // malloc nobody counted.
  ProgramResult judged = account({"compare", out, out, "--fail-on", "copied=5%"});
  EXPECT_EQ(judged.status, 0) << judged.out << judged.err;
  ProgramResult gate = account({"compare", out, out, "--fail-on", "malloc=5%"});
  EXPECT_EQ(gate.status, 5) << gate.out << gate.err;
  EXPECT_NE(gate.err.find("malloc: t/own not judged"), std::string::npos) << gate.err;
}

// Beside a process whose malloc the shim counted, the malloc figures are
// that process's, marked, with a footnote naming the one left out.
TEST(RunWithoutShim, SomeProcessesWithAMallocOfTheirOwnGetAFootnote) {
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  ProgramResult run =
      account({"run", "-q", "-o", out, "--test", "t", "--op", "mixed", "--", "/bin/sh", "-c",
               std::string(OWN_MALLOC_PATH) + " >/dev/null; /bin/true"});
  ASSERT_EQ(run.status, 0) << run.err;
  ProgramResult table = account({"report", out});
  EXPECT_EQ(table.status, 0) << table.err;
  size_t note = table.out.find("\u2020 t/mixed: 1 of ");
  ASSERT_NE(note, std::string::npos) << table.out;
  EXPECT_NE(table.out.find(" processes had a malloc not the shim's; its Malloc and Heap leave "
                           "theirs out.\n",
                           note),
            std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find("ran without the shim"), std::string::npos) << table.out;
  ProgramResult csv = account({"report", "--format", "csv", out});
  EXPECT_EQ(csv.out.find(",,"), std::string::npos) << csv.out;  // counted: figures, no blanks
}

// A root run (test t, op drop) of a shell whose `dropper` starts hello as
// nobody.
ProgramResult run_hello_dropped_by(const std::string& dropper, const std::string& out) {
  return account({"run", "-o", out, "--test", "t", "--op", "drop", "--", "/bin/sh", "-c",
                  dropper + " " + HELLO_PATH + " dropped; true"});
}

// A process that dropped root by system calls of its own (as a Go program's
// syscall.Setuid does) has no directory of its user in the run's
// (libaccount/interpose_setuid.cc): it cannot make its image file in root's
// run directory nor write root's output. The run counts it as one without
// the shim, and the program's stderr holds only its own line (before, the
// shim added "cannot write records" to it, and started a sampler of its own
// that the run counted as one more process).
TEST(RunWithoutShim, AProcessThatDroppedRootIsCountedWithoutTheShimAndSaysNothing) {
  if (geteuid() != 0) GTEST_SKIP() << "dropping root needs root";
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  ProgramResult run = run_hello_dropped_by(DROP_ROOT_RAW_PATH, out);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "hello from dropped\n");
  // hello's own line first, then the run's about the process without the shim.
  EXPECT_EQ(run.err.rfind("note\naccount run: 1 of 2 processes ran without the shim (", 0), 0u)
      << run.err;
  EXPECT_NE(run.err.find("\naccount: t drop: "), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("cannot write records"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(" (1 of 2 processes ran without the shim) -> "), std::string::npos)
      << run.err;
  std::string records = slurp(out);
  // hello's own record could not be written: none has it as its program.
  EXPECT_EQ(records.find("\"exe\":\"" HELLO_PATH "\""), std::string::npos) << records;
  EXPECT_EQ(records.find("\"processes_without_shim\""), std::string::npos) << records;
}

// The same program started as nobody by setpriv (glibc's setresuid) is
// counted: setpriv, still root, made nobody's directory in the run's, where
// hello made its image file; hello's record, which root's output refuses, is
// handed to the run. Its stderr holds only its own line, and nothing ran
// without the shim. Before, this was the case above.
TEST(RunWithoutShim, AProgramSetprivStartsAsNobodyIsCountedWithTheShim) {
  if (geteuid() != 0) GTEST_SKIP() << "dropping root needs root";
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  ProgramResult run =
      run_hello_dropped_by("setpriv --reuid=65534 --regid=65534 --clear-groups", out);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "hello from dropped\n");
  EXPECT_EQ(run.err.rfind("note\naccount: t drop: ", 0), 0u) << run.err;
  EXPECT_EQ(run.err.find("without the shim"), std::string::npos) << run.err;
  RecordFile f = read_records(out);
  const ProcessRecord* hello = nullptr;
  for (const ProcessRecord& p : f.processes)
    if (p.exe == HELLO_PATH) hello = &p;
  ASSERT_NE(hello, nullptr) << slurp(out);
  EXPECT_EQ(hello->written_by, "sampler");
  EXPECT_TRUE(hello->counted);
  EXPECT_TRUE(hello->malloc_interposed);
  EXPECT_EQ(hello->end, "exit");
}

// A static command that ends before the tree sampler's first look (one look a
// second here): no record holds its CPU, nobody sampled its size. CPU is
// wait4's rusage of the command (the tree record's waited_cpu_s), exact; Size
// and Resident are unknown, never 0 (issue 33, gap 2).
// Twenty static children, each ending long before the next tick of
// --interval 1000: no tick sees them and none has an image file, but as root
// account run reads the kernel's process events, so each fork of the tree is
// counted (issue 33). The run's line, the tree record and the report's
// footnote tell the same count.
TEST(RunWithoutShim, StaticChildrenShorterThanATickAreCountedExactlyAsRoot) {
  if (geteuid() != 0) GTEST_SKIP() << "the kernel's process events need root";
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  ProgramResult run = account({"run", "-q", "--interval", "1000", "-o", out, "--test", "t", "--op",
                               "forks", "--", "sh", "-c",
                               std::string("i=0; while [ $i -lt 20 ]; do ") + STATIC_PROGRAM_PATH +
                                   " >/dev/null; i=$((i+1)); done"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.err, without_shim_line("20 of 21 processes"));
  std::string records = slurp(out);
  EXPECT_NE(records.find(R"("processes":21,"processes_without_shim":20,)"), std::string::npos)
      << records;
  ProgramResult table = account({"report", out});
  EXPECT_NE(table.out.find("\u2020 t/forks: 20 of 21 processes ran without the shim"),
            std::string::npos)
      << table.out;
}

TEST(RunWithoutShim, StaticCommandShorterThanATickHasWaitedCpuAndUnknownSize) {
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  ProgramResult run = account({"run", "-q", "--interval", "1000", "-o", out, "--test", "t", "--op",
                               "quick", "--", STATIC_PROGRAM_PATH});
  ASSERT_EQ(run.status, 0) << run.err;
  std::string records = slurp(out);
  ASSERT_NE(records.find("\"sampled_size_peak_bytes\":0,\"sampled_rss_peak_bytes\":0,"),
            std::string::npos)
      << "the sampler saw it (a loaded machine?): " << records;
  size_t at = records.find("\"waited_cpu_s\":");
  ASSERT_NE(at, std::string::npos) << records;
  double waited = std::stod(records.substr(at + 15));
  EXPECT_GT(waited, 0.0) << records;  // an exec and a run cost some CPU
  EXPECT_NE(records.find("\"waited_max_rss_bytes\":"), std::string::npos) << records;

  ProgramResult json = account({"report", "--format", "json", out});
  ASSERT_EQ(json.status, 0) << json.err;
  at = json.out.find("\"cpu_s\": ");
  ASSERT_NE(at, std::string::npos) << json.out;
  EXPECT_NEAR(std::stod(json.out.substr(at + 9)), waited, 1e-9) << json.out;
  EXPECT_NE(json.out.find("\"size_mib\": null, \"resident_mib\": null"), std::string::npos)
      << json.out;
  ProgramResult csv = account({"report", "--format", "csv", out});
  EXPECT_NE(csv.out.find(",,,,,1,"), std::string::npos) << csv.out;  // size..malloc empty, 1 run
  ProgramResult table = account({"report", out});
  std::string row = table.out.substr(table.out.rfind("t   "));
  // Size, Resident, Copied, Malloc unknown; CPU a figure (rounded: it is small).
  EXPECT_NE(row.find("        \u2013        \u2013         \u2013        \u2013\n"),
            std::string::npos)
      << table.out;
  EXPECT_EQ(row.find("0.00     0.00"), std::string::npos) << table.out;
}

}  // namespace
}  // namespace account::testing
