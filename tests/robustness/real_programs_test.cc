// Real programs print the same bytes and return the same status with the shim
// as without it (ACCOUNT_OUTPUT set), and every process image they start has
// exactly one record.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "robustness.h"

namespace account::testing {
namespace {

// Number of records whose exe ends with `name`.
size_t images_of(const RecordFile& f, const std::string& name) {
  size_t n = 0;
  for (const auto& p : f.processes)
    n += p.exe.size() >= name.size() &&
         p.exe.compare(p.exe.size() - name.size(), name.size(), name) == 0;
  return n;
}

// A root `account run` of a database's life as its own user, the way CI
// scripts do it: Debian's PostgreSQL 15 made, started, loaded with 100,000
// rows and stopped by programs that setpriv starts as nobody (initdb refuses
// root). Every process runs with the shim (setpriv made nobody's directory in
// the run's: libaccount/image_file.h), the server's own included, and the
// tree record, the report and the run's line count the same processes.
// Before, 26 of 34 processes ran without the shim and the run's Malloc read
// 2.5 MiB.
TEST(RobustnessRealPrograms, APostgresServerStartedAsNobodyIsCountedWithTheShim) {
  ASSERT_EQ(geteuid(), 0u) << "a server started as another user needs a root run";
  const std::string bin = "/usr/lib/postgresql/15/bin";
  ASSERT_EQ(access((bin + "/initdb").c_str(), X_OK), 0)
      << bin << "/initdb is missing: install postgresql-15 (scripts/install-deps.sh does)";
  TempDir dir;
  ASSERT_EQ(chown(dir.path().c_str(), 65534, 65534), 0);
  std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  std::string data = dir.file("data");
  std::string script =
      "set -e\n" + as_nobody + bin + "/initdb -D " + data +
      " -U account --auth=trust -E UTF8 --no-sync >/dev/null\n" + as_nobody + bin + "/pg_ctl -D " +
      data + " -l " + dir.file("log") + " -w -o '-k " + dir.path() +
      " -c listen_addresses= -c fsync=off' start >/dev/null\n" + as_nobody + bin + "/psql -h " +
      dir.path() + " -U account -d postgres -Atc 'CREATE TABLE t AS SELECT g, md5(g::text) FROM " +
      "generate_series(1, 100000) g; SELECT count(*) FROM t'\n" + as_nobody + bin + "/pg_ctl -D " +
      data + " -m fast -w stop >/dev/null\n";
  std::string out = dir.file("r.jsonl");
  ProgramResult run = run_program({ACCOUNT_CLI_PATH, "run", "-o", out, "--test", "pg", "--op",
                                   "life", "--", "sh", "-c", script});
  ASSERT_EQ(run.status, 0) << run.err << run.out;
  EXPECT_EQ(run.out, "SELECT 100000\n100000\n");
  EXPECT_EQ(run.err.find("without the shim"), std::string::npos) << run.err;
  RecordFile f = read_records(out);
  ASSERT_EQ(f.trees.size(), 1u);
  uint64_t server_processes = 0, server_malloc = 0;
  for (const ProcessRecord& p : f.processes) {
    EXPECT_TRUE(p.counted) << p.exe;
    EXPECT_TRUE(p.malloc_interposed) << p.exe;
    if (p.exe != bin + "/postgres") continue;
    ++server_processes;
    server_malloc += p.malloc_bytes;
  }
  // The postmaster, its checkpointer, background writer, WAL writer,
  // autovacuum launcher and the backend that loads the table (initdb's
  // single-user postgres processes too).
  EXPECT_GE(server_processes, 6u);
  // The backend that makes 100,000 rows of 32 hex digits allocates well over
  // their 3.2 MB (measured: 0.5 GiB over the servers' processes).
  EXPECT_GE(server_malloc, 64u << 20);
  ProgramResult report = run_program({ACCOUNT_CLI_PATH, "report", "--format", "json", out});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find(fmt::format("\"processes\": {}, \"processes_without_shim\": 0",
                                        f.trees[0].processes)),
            std::string::npos)
      << report.out;
}

TEST(RobustnessRealPrograms, GitSessionBranchMergeGcCloneFsck) {
  TempDir dir;
  std::string script =
      "set -e\n"
      "git -c init.defaultBranch=main init -q repo && cd repo\n"
      "for i in $(seq 1 30); do echo \"line $i\" > f$i.txt; done\n"
      "git add . && git commit -q -m first\n"
      "git branch topic && git checkout -q topic\n"
      "echo topic >> f1.txt && git commit -q -am 'on topic'\n"
      "git checkout -q main && echo main >> f2.txt && git commit -q -am 'on main'\n"
      "git merge -q --no-edit topic\n"
      "git log --format='%H %s' --graph\n"
      "git gc -q\n"
      "cd .. && git clone -q --no-local repo copy && cd copy\n"
      "git fsck --no-progress --strict\n"
      "git rev-parse HEAD && git count-objects -v | grep -v size\n";
  Comparison c = run_both(dir, {"/bin/sh", "-c", script}, git_env(dir));
  ASSERT_EQ(c.plain.status, 0) << c.plain.err;
  size_t images = expect_same(c);
  EXPECT_GE(images_of(c.shim.records, "/git"), 15u) << context(c);
  EXPECT_GE(images, 20u);
  // gc and clone run helpers of their own (pack-objects, index-pack, upload-pack).
  EXPECT_GE(images_of(c.shim.records, "/git"), 15u);
  bool pack_objects = false;
  for (const auto& p : c.shim.records.processes)
    for (const auto& a : p.argv) pack_objects |= a == "pack-objects";
  EXPECT_TRUE(pack_objects) << context(c);
}

TEST(RobustnessRealPrograms, BashPipelineAndSubshells) {
  TempDir dir;
  std::string script =
      "set -o pipefail\n"
      "seq 1 2000 | (while read n; do echo $((n * 2)); done) | sort -n | tail -3\n"
      "x=$( (echo inner; echo err >&2) 2>&1 | tr a-z A-Z ); echo \"$x\"\n"
      "( cd /; pwd; exit 3 ); echo \"subshell $?\"\n"
      "{ echo a; echo b; } | cat -n\n"
      "false | true; echo \"pipefail $?\"\n"
      "exit 4\n";
  Comparison c = run_both(dir, {"/bin/bash", "-c", script});
  EXPECT_EQ(c.plain.status, 4);
  EXPECT_EQ(c.plain.out,
            "3996\n3998\n4000\nINNER\nERR\n/\nsubshell 3\n     1\ta\n     2\tb\npipefail 1\n");
  size_t images = expect_same(c);
  EXPECT_GE(images, 12u) << context(c);
  EXPECT_EQ(images_of(c.shim.records, "/sort"), 1u);
  EXPECT_EQ(images_of(c.shim.records, "/tail"), 1u);
}

// /usr/bin/python3 (the python3 on PATH may be a pyenv wrapper).
TEST(RobustnessRealPrograms, PythonThreadsSubprocessMultiprocessing) {
  TempDir dir;
  std::string program = R"py(
import multiprocessing as mp, subprocess, sys, threading

def square(n):
    return n * n

def main():
    out = []
    lock = threading.Lock()
    def work(i):
        s = sum(len(str(j)) for j in range(20000 + i))
        with lock:
            out.append((i, s))
    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts: t.start()
    for t in ts: t.join()
    print(sorted(out))
    print(subprocess.run(["/bin/echo", "child"], capture_output=True, text=True).stdout.strip())
    print(subprocess.check_output("echo $((6*7))", shell=True).decode().strip())
    for method in ("fork", "spawn"):
        with mp.get_context(method).Pool(3) as pool:
            print(method, pool.map(square, range(10)))
        p = mp.get_context(method).Process(target=square, args=(3,))
        p.start()
        p.join()
        print(method, "exitcode", p.exitcode)
    print("stderr line", file=sys.stderr)
    sys.exit(5)

if __name__ == "__main__":
    main()
)py";
  std::ofstream(dir.file("prog.py")) << program;
  Comparison c = run_both(dir, {"/usr/bin/python3", dir.file("prog.py")});
  EXPECT_EQ(c.plain.status, 5) << c.plain.err;
  EXPECT_NE(c.plain.out.find("spawn [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]\n"), std::string::npos)
      << c.plain.out;
  size_t images = expect_same(c);
  // python, echo, sh -c, 3+1 fork children, and the spawn children (each a
  // python image), at least 3+1 of them.
  EXPECT_GE(images, 1u + 1 + 1 + 4 + 4) << context(c);
}

TEST(RobustnessRealPrograms, Perl) {
  TempDir dir;
  std::string program =
      "my %h; $h{$_ % 97} .= $_ for 1..50000; my $s = 0; $s += length($h{$_}) for keys %h;\n"
      "print \"sum $s\\n\"; my $out = `echo backtick`; print $out;\n"
      "my $pid = fork(); if ($pid == 0) { print STDERR \"child\\n\"; exit 3 }\n"
      "waitpid($pid, 0); print \"child status \", $? >> 8, \"\\n\"; exit 6;\n";
  Comparison c = run_both(dir, {"/usr/bin/perl", "-e", program});
  EXPECT_EQ(c.plain.status, 6);
  EXPECT_EQ(c.plain.out, "sum 238894\nbacktick\nchild status 3\n");
  // perl, the backtick child (a perl image that execs echo), echo, the fork child.
  EXPECT_EQ(expect_same(c), 4u) << context(c);
  EXPECT_EQ(images_of(c.shim.records, "/echo"), 1u);
}

TEST(RobustnessRealPrograms, JavaMultiThreaded) {
  TempDir dir;
  std::ofstream(dir.file("Threads.java")) << R"(
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;
public class Threads {
  public static void main(String[] args) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    AtomicLong total = new AtomicLong();
    java.util.List<Future<Long>> fs = new java.util.ArrayList<>();
    for (int t = 0; t < 16; ++t) {
      final int id = t;
      fs.add(pool.submit(() -> {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20000; ++i) sb.append(i % (id + 1));
        total.addAndGet(sb.length());
        return (long) sb.toString().hashCode();
      }));
    }
    long h = 0;
    for (Future<Long> f : fs) h = h * 31 + f.get();
    pool.shutdown();
    System.out.println("total " + total.get() + " hash " + h);
    System.err.println("done");
    System.exit(9);
  }
}
)";
  Comparison c = run_both(dir, {"java", "-Xshare:auto", dir.file("Threads.java")}, {}, 120);
  EXPECT_EQ(c.plain.status, 9) << c.plain.err;
  EXPECT_EQ(c.plain.out.rfind("total ", 0), 0u) << c.plain.out;
  EXPECT_GE(expect_same(c), 1u);
  EXPECT_EQ(images_of(c.shim.records, "/java"), 1u) << context(c);
}

TEST(RobustnessRealPrograms, NodeWorkerThreads) {
  TempDir dir;
  std::string program = R"(
const { Worker } = require('worker_threads');
const jobs = [1, 2, 3, 4].map(n => new Promise((resolve, reject) => {
  const w = new Worker(`const { parentPort, workerData } = require('worker_threads');
    let s = 0; for (let i = 0; i < 200000 * workerData; ++i) s += i % 7;
    parentPort.postMessage(s);`, { eval: true, workerData: n });
  w.on('message', resolve); w.on('error', reject);
}));
Promise.all(jobs).then(r => { console.log(r.join(' ')); console.error('workers done');
  process.exitCode = 8; });
)";
  Comparison c = run_both(dir, {"node", "-e", program});
  EXPECT_EQ(c.plain.status, 8) << c.plain.err;
  EXPECT_EQ(c.plain.out, "599994 1199997 1799995 2399995\n");
  EXPECT_EQ(expect_same(c), 1u) << context(c);
}

// The heap_peak record of a run of valgrind TOOL on heap_peak (which asks
// malloc for exactly 4889254 bytes), standalone and the same as without the
// shim: output, status and valgrind's stderr (the shim asks valgrind for no
// system call it does not know, openat2 or pidfd_open, and starts no sampler
// clone it cannot run: each was a warning on the program's stderr).
ProcessRecord heap_peak_on_valgrind(const TempDir& dir, const std::string& tool) {
  Comparison c = run_both(dir, {"valgrind", "-q", "--tool=" + tool, test_program("heap_peak")});
  EXPECT_EQ(c.plain.status, 0) << c.plain.err;
  EXPECT_EQ(c.shim.result.err, c.plain.err) << context(c);
  EXPECT_EQ(expect_same(c), 3u) << context(c);  // valgrind's script, valgrind.bin, heap_peak
  for (const ProcessRecord& p : c.shim.records.processes)
    if (p.end != "exec") return p;
  ADD_FAILURE() << "no final record\n" << context(c);
  return {};
}

// Valgrind runs the program on its own CPU. memcheck (as massif, dhat,
// helgrind and drd) diverts every malloc, the shim's too, to its own
// allocator: no call reaches the shim, and the record says its malloc was not
// the shim's (Malloc unknown in every output); before, it read 0 bytes as if
// counted. none (as cachegrind and callgrind) leaves malloc alone: counted
// exactly.
TEST(RobustnessRealPrograms, UnderValgrindMallocIsCountedOrUnknownNeverZero) {
  TempDir memcheck_dir, none_dir;
  ProcessRecord memcheck = heap_peak_on_valgrind(memcheck_dir, "memcheck");
  EXPECT_TRUE(memcheck.counted);
  EXPECT_FALSE(memcheck.malloc_interposed);
  EXPECT_EQ(memcheck.malloc_bytes, 0u);
  ProcessRecord none = heap_peak_on_valgrind(none_dir, "none");
  EXPECT_TRUE(none.malloc_interposed);
  EXPECT_EQ(none.malloc_bytes, 4889254u);
  // account run and its report: the one process's Malloc is unknown (null).
  TempDir dir;
  std::string out = dir.file("r.jsonl");
  ProgramResult run = run_program({ACCOUNT_CLI_PATH, "run", "-o", out, "--", "valgrind", "-q",
                                   "--tool=memcheck", test_program("heap_peak")});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find(", malloc – MiB (1 of 1 process had a malloc not the shim's) -> "),
            std::string::npos)
      << run.err;
  ProgramResult report = run_program({ACCOUNT_CLI_PATH, "report", "--format", "json", out});
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("\"malloc_mib\": null"), std::string::npos) << report.out;
}

// The shim holds no descriptor the program or its children can see, and never
// takes 0, 1 or 2 when a program starts with one of them closed: the
// descriptors a program lists are the same with and without it.
TEST(RobustnessRealPrograms, DescriptorsUnchangedAlsoWithStandardOnesClosed) {
  TempDir dir;
  std::string script =
      "ls /proc/self/fd; echo --; (exec 0<&-; ls /proc/self/fd); echo --;"
      "(exec 2>&-; ls /proc/self/fd); echo --; (exec 0<&- 2>&-; /bin/sh -c 'ls /proc/self/fd')";
  Comparison c = run_both(dir, {"/bin/sh", "-c", script});
  // (The test's own environment may pass extra descriptors down: compare, do
  // not spell out.)
  EXPECT_EQ(std::count(c.plain.out.begin(), c.plain.out.end(), '-'), 6) << c.plain.out;
  EXPECT_GE(expect_same(c), 5u) << context(c);
  EXPECT_EQ(images_of(c.shim.records, "/ls"), 4u) << context(c);
}

}  // namespace
}  // namespace account::testing
