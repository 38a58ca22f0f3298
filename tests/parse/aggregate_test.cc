// Aggregation: runs from tree records, sums and peaks, exec chains, medians.
#include "aggregate.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "golden.h"
#include "metric.h"
#include "reader.h"

namespace account {
namespace {

constexpr uint64_t kMiB = 1 << 20;

std::vector<Operation> aggregate_file(const std::string& name, Kept kept = Kept::kRuns) {
  std::string error;
  auto reader = LineReader::open(testing::data_path(name), &error);
  EXPECT_TRUE(reader) << error;
  Aggregator a(kept);
  ReadSummary s;
  read_records(
      *reader, false, [&](Record&& r) { a.add(r); },
      [](const BadLine& b) { ADD_FAILURE() << b.message(); }, &s);
  return a.finish();
}

ProcessRecord process(int64_t pid, uint64_t start_s, double cpu, uint64_t vm_mib,
                      const char* end = "exit") {
  ProcessRecord p;
  p.pid = pid;
  p.test = "t";
  p.op = "o";
  p.start_ns = start_s * 1000000000;
  p.end_ns = p.start_ns + 500000000;
  p.cpu_user_s = cpu;
  p.vm_peak_bytes = vm_mib * kMiB;
  p.copied_bytes = 1;
  p.malloc_bytes = 2;
  p.end = end;
  return p;
}

// The one run of the one operation `a` saw.
RunFigures only_run(Aggregator& a) {
  auto ops = a.finish();
  if (ops.size() != 1 || ops[0].runs.size() != 1) {
    ADD_FAILURE() << ops.size() << " operations, not one with one run";
    return RunFigures{};
  }
  return ops[0].runs[0];
}

TreeRecord tree(uint64_t start_s, uint64_t end_s, uint64_t size_mib) {
  TreeRecord t;
  t.test = "t";
  t.op = "o";
  t.start_ns = start_s * 1000000000;
  t.end_ns = end_s * 1000000000;
  t.sampled_size_peak_bytes = size_mib * kMiB;
  return t;
}

// A daemon the command started forks a child after the command ended (git
// daemon serving a connection): the child belongs to the run, whose window
// reaches tree_end_ns, while the run's wall stays the command's.
TEST(Aggregate, ProcessesAfterTheCommandUntilTreeEndBelongToTheRun) {
  Aggregator a;
  TreeRecord t = tree(10, 12, 0);
  t.tree_end_ns = 20ull * 1000000000;
  a.add(t);
  a.add(process(1, 10, 1.0, 5));
  a.add(process(2, 11, 2.0, 5));
  a.add(process(3, 15, 4.0, 7));  // after end_ns, before tree_end_ns
  auto ops = a.finish();
  ASSERT_EQ(ops.size(), 1u);
  ASSERT_EQ(ops[0].runs.size(), 1u);
  EXPECT_DOUBLE_EQ(ops[0].runs[0].cpu_s, 7.0);
  EXPECT_EQ(ops[0].runs[0].processes, 3u);
  EXPECT_EQ(ops[0].runs[0].size_bytes, 7 * kMiB);
  EXPECT_DOUBLE_EQ(ops[0].runs[0].wall_s, 2.0);
}

// wait4's rusage in the tree record (waited_cpu_s) holds the CPU of the
// processes no record shows, and each process's exit after its record's
// getrusage: the run's CPU is the larger of it and the records' sum, which in
// turn holds processes nobody of the tree waited for (a daemon).
TEST(Aggregate, RunCpuIsTheLargerOfWaitedAndTheRecordsSum) {
  auto cpu_of = [](TreeRecord t, std::vector<ProcessRecord> records) {
    Aggregator a;
    a.add(t);
    for (const ProcessRecord& p : records) a.add(p);
    auto ops = a.finish();
    EXPECT_EQ(ops.size(), 1u);
    return ops.empty() ? -1.0 : ops[0].runs[0].cpu_s;
  };
  TreeRecord alone = tree(10, 12, 0);
  alone.processes = 1;
  alone.processes_without_shim = 1;
  alone.waited_cpu_s = 0.25;
  EXPECT_DOUBLE_EQ(cpu_of(alone, {}), 0.25);
  TreeRecord mixed = tree(10, 12, 0);
  mixed.processes = 4;
  mixed.processes_without_shim = 3;
  mixed.waited_cpu_s = 0.75;
  EXPECT_DOUBLE_EQ(cpu_of(mixed, {process(1, 10, 0.125, 5)}), 0.75);
  TreeRecord shimmed = tree(10, 12, 0);
  shimmed.processes = 1;
  shimmed.waited_cpu_s = 0.75;
  EXPECT_DOUBLE_EQ(cpu_of(shimmed, {process(1, 10, 0.125, 5)}), 0.75);
  TreeRecord with_daemon = tree(10, 12, 0);  // a process nobody waited for
  with_daemon.processes = 2;
  with_daemon.waited_cpu_s = 0.125;
  EXPECT_DOUBLE_EQ(cpu_of(with_daemon, {process(1, 10, 0.125, 5), process(2, 10, 0.5, 5)}), 0.625);
  TreeRecord older = tree(10, 12, 0);  // no waited_cpu_s: the records' sum
  older.processes_without_shim = 1;
  EXPECT_DOUBLE_EQ(cpu_of(older, {process(1, 10, 0.125, 5)}), 0.125);
}

// A peak nobody sampled or read (a process without the shim that ended before
// the first sample) is unknown, never 0; a median is over the runs that have it.
TEST(Aggregate, SizeNobodySampledIsUnknown) {
  Aggregator a;
  TreeRecord unsampled = tree(10, 12, 0);
  unsampled.processes_without_shim = 1;
  a.add(unsampled);
  const RunFigures r = only_run(a);
  EXPECT_FALSE(metric_counted(r, Metric::kSize));
  EXPECT_FALSE(metric_counted(r, Metric::kResident));
  EXPECT_TRUE(metric_counted(r, Metric::kCpu));
  RunFigures sampled = r;
  sampled.size_bytes = 6 * kMiB;
  RunFigures m = median_of_runs({r, sampled, r});
  EXPECT_EQ(m.size_bytes, 6 * kMiB);  // not the median of 0, 0 and 6
  EXPECT_FALSE(metric_counted(median_of_runs({r, r}), Metric::kSize));
}

TEST(Aggregate, OperationsInOrderOfFirstAppearanceGroupedByTest) {
  auto ops = aggregate_file("ops.jsonl");
  std::vector<std::string> names;
  for (const auto& o : ops) names.push_back(o.test + "/" + o.op);
  EXPECT_EQ(names,
            (std::vector<std::string>{"alpha/add", "alpha/commit", "alpha/push", "beta/checkout",
                                      "a_rather_long_test_name/clone --mirror"}));
}

TEST(Aggregate, SingleProcessWithoutTree) {
  const Operation add = aggregate_file("ops.jsonl")[0];
  ASSERT_EQ(add.runs.size(), 1u);
  const RunFigures& r = add.runs[0];
  EXPECT_DOUBLE_EQ(r.cpu_s, 0.75);
  EXPECT_EQ(r.size_bytes, 10 * kMiB);     // vm_peak above the sampled 9 MiB
  EXPECT_EQ(r.resident_bytes, 5 * kMiB);  // sampled 5 MiB above rss_peak 4 MiB
  EXPECT_EQ(r.copied_bytes, 1572864u);
  EXPECT_DOUBLE_EQ(r.wall_s, 2.0);
  EXPECT_FALSE(r.has_tree);
}

TEST(Aggregate, TreeWithExecChainAndLateKilledRecord) {
  const Operation commit = aggregate_file("ops.jsonl")[1];
  ASSERT_EQ(commit.runs.size(), 1u);
  const RunFigures& r = commit.runs[0];
  // sh (0.1 s) exec'd into git (1.5 s, which includes sh's 0.1), a child 0.25, a
  // killed cat 0.5 whose record came after the tree record.
  EXPECT_DOUBLE_EQ(r.cpu_s, 1.5 + 0.25 + 0.5);
  EXPECT_EQ(r.size_bytes, 40 * kMiB);      // the tree's concurrent peak
  EXPECT_EQ(r.resident_bytes, 20 * kMiB);  // above the largest process (15)
  EXPECT_EQ(r.copied_bytes, 12 * kMiB);
  EXPECT_EQ(r.malloc_bytes, uint64_t(25.5 * kMiB));
  EXPECT_EQ(r.processes, 4u);
  EXPECT_DOUBLE_EQ(r.wall_s, 3.0);
}

TEST(Aggregate, RepeatedRunsAndTheirMedian) {
  const Operation checkout = aggregate_file("ops.jsonl")[3];
  ASSERT_EQ(checkout.runs.size(), 3u);
  EXPECT_EQ(checkout.runs[0].size_bytes, 50 * kMiB);  // process above the tree
  EXPECT_EQ(checkout.runs[1].size_bytes, 70 * kMiB);  // tree above the process
  EXPECT_EQ(checkout.runs[2].size_bytes, 55 * kMiB);
  RunFigures m = median_of_runs(checkout.runs);
  EXPECT_DOUBLE_EQ(m.cpu_s, 2.0);
  EXPECT_EQ(m.size_bytes, 55 * kMiB);
  EXPECT_EQ(m.resident_bytes, 33 * kMiB);
  EXPECT_EQ(m.copied_bytes, 6 * kMiB);
  EXPECT_DOUBLE_EQ(m.wall_s, 2.0);
}

TEST(Aggregate, MedianOfAnEvenNumberOfRunsIsTheMeanOfTheMiddleTwo) {
  std::vector<RunFigures> runs(4);
  double cpu[] = {4, 1, 3, 2};
  for (size_t i = 0; i < 4; ++i) runs[i].cpu_s = cpu[i], runs[i].size_bytes = (i + 1) * 10;
  for (size_t i = 0; i < 4; ++i) runs[i].anon_bytes = 100 - i * 20;  // 100, 80, 60, 40
  RunFigures m = median_of_runs(runs);
  EXPECT_DOUBLE_EQ(m.cpu_s, 2.5);
  EXPECT_EQ(m.size_bytes, 25u);
  EXPECT_EQ(m.anon_bytes, 70u);
}

TEST(Aggregate, ProcessesOutsideEveryTreeFormOneMoreRun) {
  Aggregator a;
  a.add(process(1, 10, 1.0, 5));
  a.add(tree(10, 20, 0));
  a.add(process(2, 100, 7.0, 3));  // no tree covers t=100
  auto ops = a.finish();
  ASSERT_EQ(ops.size(), 1u);
  ASSERT_EQ(ops[0].runs.size(), 2u);
  EXPECT_DOUBLE_EQ(ops[0].runs[0].cpu_s, 1.0);
  EXPECT_TRUE(ops[0].runs[0].has_tree);
  EXPECT_DOUBLE_EQ(ops[0].runs[1].cpu_s, 7.0);
  EXPECT_FALSE(ops[0].runs[1].has_tree);
}

TEST(Aggregate, ExecRecordCountsWhenNoLaterImageIsRecorded) {
  Aggregator a;
  a.add(process(1, 10, 0.25, 5, "exec"));  // exec'd into a program without the shim
  a.add(process(2, 11, 1.0, 5));
  auto ops = a.finish();
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_DOUBLE_EQ(ops[0].runs[0].cpu_s, 1.25);
}

// bwrap's child in its pid namespace (pid 2 there) exec'd before account run
// placed it, so its exec record names pid 2; the next image, placed, names
// the run's pid, 2949, and namespace_pid 2: one process with the shim, whose
// CPU is the next image's (the kernel's counters survive exec).
// An exec record (0.25 s of CPU) and the next image of its process (1.0 s in
// all: the kernel's counters survive exec), told apart by their pids, joined
// by the namespace_pid of one of them (after, or before), or not (0): one
// process with the shim, or two, one of them without.
void expect_joined_by_namespace_pid(int64_t before_pid, int64_t after_pid, bool key_on_after) {
  for (int64_t namespace_pid : {key_on_after ? before_pid : after_pid, int64_t{0}}) {
    ProcessRecord before = process(before_pid, 10, 0.25, 5, "exec");
    ProcessRecord after = process(after_pid, 10, 1.0, 5);
    after.start_ns = before.end_ns;
    (key_on_after ? after : before).namespace_pid = namespace_pid;
    Aggregator a;
    a.add(before);
    a.add(after);
    const RunFigures r = only_run(a);
    EXPECT_EQ(r.processes, namespace_pid ? 1u : 2u) << namespace_pid;
    EXPECT_EQ(r.processes_without_shim, namespace_pid ? 0u : 1u) << namespace_pid;
    EXPECT_DOUBLE_EQ(r.cpu_s, namespace_pid ? 1.0 : 1.25) << namespace_pid;
  }
}

TEST(Aggregate, AnExecInAPidNamespaceContinuesUnderTheRunsPid) {
  expect_joined_by_namespace_pid(2, 2949, /*key_on_after=*/true);
}

// `runuser -u postgres -- psql` under a root run: runuser execs psql's perl
// wrapper, which execs psql; each image dropped root, so the run writes
// their records when it handles their handovers, in no fixed order. Any
// order is one process with the shim, whose CPU is the last image's. Before,
// an exec record read after the next one's made two processes, one of them
// "without the shim".
TEST(Aggregate, AnExecChainIsOneProcessInWhateverOrderItsRecordsCome) {
  std::vector<ProcessRecord> chain = {process(7, 10, 0.1, 5, "exec"),
                                      process(7, 10, 0.2, 5, "exec"), process(7, 10, 0.5, 5)};
  for (size_t i = 0; i < chain.size(); ++i) {
    chain[i].start_ns += i * 400000000;  // each starts where the one before exec'd
    chain[i].end_ns = chain[i].start_ns + 400000000;
  }
  std::vector<size_t> order = {0, 1, 2};
  do {
    for (bool with_tree : {true, false}) {
      Aggregator a;
      for (size_t i : order) a.add(chain[i]);
      if (with_tree) {
        TreeRecord t = tree(10, 12, 5);
        t.processes = 1;
        a.add(t);
      }
      const RunFigures r = only_run(a);
      std::string seen = "order " + std::to_string(order[0]) + std::to_string(order[1]) +
                         std::to_string(order[2]) + (with_tree ? ", tree" : "");
      EXPECT_EQ(r.processes, 1u) << seen;
      EXPECT_EQ(r.processes_without_shim, 0u) << seen;
      EXPECT_DOUBLE_EQ(r.cpu_s, 0.5) << seen;
    }
  } while (std::next_permutation(order.begin(), order.end()));
}

// `unshare -pf --mount-proc true`: unshare's fork child (2949 to the run, 1
// in its namespace) exec'd true, whose record names the namespace's pid only
// (the namespace's /proc was mounted by then): one process with the shim,
// whose CPU is true's. Without the exec record's namespace_pid, two
// processes, one of them without the shim.
TEST(Aggregate, AnImageNamedByItsNamespacesPidContinuesTheExecBeforeIt) {
  expect_joined_by_namespace_pid(2949, 1, /*key_on_after=*/false);
}

// `sh -c "static_program; exec static_program"`: the shell (pid 1, with the
// shim) forks a static child (pid 2, no record) and then execs the static
// program, which writes none either. Two processes, both of which ran a
// program without the shim: the exec'd image is the shell's process, not a
// third one, with a tree record and without one.
TEST(Aggregate, AnExecIntoAProgramWithoutARecordIsTheSameProcess) {
  for (bool with_tree : {true, false}) {
    Aggregator a;
    a.add(process(1, 10, 0.25, 5, "exec"));
    if (with_tree) {
      TreeRecord t = tree(10, 12, 5);
      t.processes = 2;
      t.processes_without_shim = 1;  // the static child
      a.add(t);
    }
    const RunFigures r = only_run(a);
    EXPECT_EQ(r.processes, with_tree ? 2u : 1u) << with_tree;
    EXPECT_EQ(r.processes_without_shim, with_tree ? 2u : 1u) << with_tree;
    EXPECT_EQ(r.shim_processes, 1u) << with_tree;
    EXPECT_EQ(without_shim_note(r), with_tree ? "2 of 2 processes ran without the shim"
                                              : "1 of 1 process ran without the shim");
  }
}

// The same exec read while its process still runs (a daemon of a run whose
// account run has returned: the summary's figures so far): its next image's
// record is still to come, so it is not one without the shim; its CPU stays.
TEST(Aggregate, AnExecOfAProcessStillRunningAwaitsItsNextRecord) {
  Aggregator a;
  a.add(process(1, 10, 0.25, 5, "exec"));
  TreeRecord t = tree(10, 12, 5);
  t.processes = 1;
  a.add(t);
  a.still_running({7, 1});
  const RunFigures r = only_run(a);
  EXPECT_EQ(r.processes, 1u);
  EXPECT_EQ(r.processes_without_shim, 0u);
  EXPECT_EQ(r.shim_processes, 1u);
  EXPECT_DOUBLE_EQ(r.cpu_s, 0.25);
}

// Over a long run pids come back (pid_max is 32,768 on many hosts). A shell
// (pid 1) exec'd into a static program, which wrote no record; 100 s later a
// new process takes pid 1. It is another process, not the rest of that
// chain: two processes, the first without the shim, the CPU of both. Before,
// the second continued the chain: one process, all with the shim, the exec'd
// image's 0.25 s gone. A continuation 20 ms after the exec is still one.
TEST(Aggregate, APidThatComesBackLaterIsAnotherProcess) {
  Aggregator a;
  a.add(process(1, 10, 0.25, 5, "exec"));
  a.add(process(1, 110, 1.0, 5));
  ProcessRecord shell = process(2, 200, 0.5, 5, "exec");
  ProcessRecord prog = process(2, 200, 0.75, 5);  // 0.75 s: the shell's 0.5 too
  prog.start_ns = shell.end_ns + 20000000;
  prog.end_ns = prog.start_ns + 1000000;
  a.add(shell);
  a.add(prog);
  const RunFigures r = only_run(a);
  EXPECT_EQ(r.processes, 3u);
  EXPECT_EQ(r.processes_without_shim, 1u);
  EXPECT_DOUBLE_EQ(r.cpu_s, 0.25 + 1.0 + 0.75);
}

// The same, with thousands of processes between the two, which the
// aggregator folds into lumps: the exec'd image and the pid's later process
// land in different lumps, which do not join them either.
TEST(Aggregate, APidThatComesBackInAnotherLumpIsAnotherProcess) {
  Aggregator a;
  a.add(process(1, 10, 0.25, 5, "exec"));
  for (int i = 0; i < 3000; ++i) a.add(process(1000 + i, 20 + uint64_t(i) / 100, 0.5, 1));
  a.add(process(1, 110, 1.0, 5));
  auto ops = a.finish();
  ASSERT_EQ(ops.size(), 1u);
  uint64_t processes = 0, without = 0;
  double cpu = 0;
  for (const RunFigures& r : ops[0].runs) {
    processes += r.processes;
    without += r.processes_without_shim;
    cpu += r.cpu_s;
  }
  EXPECT_EQ(processes, 3002u);
  EXPECT_EQ(without, 1u);
  EXPECT_DOUBLE_EQ(cpu, 0.25 + 1500.0 + 1.0);
}

// Two processes under one pid, each without the shim, or each with a malloc
// not the shim's: two of them, not one.
TEST(Aggregate, UncountedProcessesOfOnePidCountEach) {
  Aggregator a;
  ProcessRecord first = process(7, 10, 0.1, 1);
  first.counted = false;
  ProcessRecord second = process(7, 110, 0.1, 1);
  second.counted = false;
  ProcessRecord third = process(8, 10, 0.1, 1);
  third.malloc_interposed = false;
  ProcessRecord fourth = process(8, 110, 0.1, 1);
  fourth.malloc_interposed = false;
  for (const ProcessRecord& p : {first, second, third, fourth}) a.add(p);
  const RunFigures r = only_run(a);
  EXPECT_EQ(r.processes, 4u);
  EXPECT_EQ(r.processes_without_shim, 2u);
  EXPECT_EQ(r.malloc_unseen_processes, 2u);
}

TEST(Aggregate, ManyProcessesBeforeTheirTreeStillJoinIt) {
  // More processes than are kept one by one: they are folded and still land in the run.
  Aggregator a;
  for (int i = 0; i < 10000; ++i) a.add(process(i + 1, 100 + uint64_t(i % 50), 0.5, 1));
  a.add(tree(100, 200, 0));
  a.add(process(99999, 300, 1.0, 1));
  a.add(tree(300, 301, 0));
  auto ops = a.finish();
  ASSERT_EQ(ops.size(), 1u);
  ASSERT_EQ(ops[0].runs.size(), 2u);
  EXPECT_EQ(ops[0].runs[0].processes, 10000u);
  EXPECT_DOUBLE_EQ(ops[0].runs[0].cpu_s, 5000.0);
  EXPECT_EQ(ops[0].runs[0].copied_bytes, 10000u);
  EXPECT_EQ(ops[0].runs[1].processes, 1u);
}

// Chain i of a script of `sh -c "exec prog"`, 10 ms apart: the shell's exec'd
// image (0.125 s of CPU) and the program's (0.5 s, the shell's included), on
// pid i + 1. Every seventh chain's exec comes late: the largest start gap of
// its fold.
std::pair<ProcessRecord, ProcessRecord> exec_chain(int i) {
  constexpr uint64_t kMs = 1000000;
  uint64_t start = 100000 * kMs + uint64_t(i) * 10 * kMs;
  ProcessRecord shell = process(i + 1, 0, 0.125, 1, "exec");
  shell.start_ns = start;
  shell.end_ns = start + 2 * kMs;
  ProcessRecord prog = process(i + 1, 0, 0.5, 1);
  prog.start_ns = start + (i % 7 == 0 ? 9 : 2) * kMs;
  prog.end_ns = prog.start_ns + kMs;
  return {shell, prog};
}

// A run of thousands of `sh -c "exec prog"` before its tree record: the
// processes kept one by one are folded into lumps, and a chain's exec'd image
// lands in one lump and its next image in another (a fold between the two, or
// a cut at the start gap between them). The chain is still one process, its
// CPU the last image's (the kernel's counters survive exec), its copies and
// allocations both images', and nobody ran without the shim.
TEST(Aggregate, ExecChainsSplitAcrossFoldedLumpsAreOneProcessEach) {
  constexpr int kChains = 3000;
  Aggregator a;
  for (int i = 0; i < kChains; ++i) {
    auto [shell, prog] = exec_chain(i);
    prog.copied_bytes = 5;  // an image's own counts: the chain's are both images'
    prog.malloc_bytes = 6;
    a.add(shell);
    a.add(prog);
  }
  TreeRecord t = tree(100, 200, 0);
  t.processes = kChains;
  a.add(t);
  const RunFigures r = only_run(a);
  EXPECT_EQ(r.processes, uint64_t(kChains));
  EXPECT_EQ(r.shim_processes, uint64_t(kChains));
  EXPECT_EQ(r.processes_without_shim, 0u);
  EXPECT_DOUBLE_EQ(r.cpu_s, 0.5 * kChains);
  EXPECT_EQ(r.copied_bytes, (1u + 5u) * kChains);
  EXPECT_EQ(r.malloc_bytes, (2u + 6u) * kChains);
}

// The same without a tree record: the lumps make one run at the end.
TEST(Aggregate, ExecChainsSplitAcrossLumpsWithoutATreeAreOneProcessEach) {
  constexpr int kChains = 2500;
  Aggregator a;
  for (int i = 0; i < kChains; ++i) {
    auto [shell, prog] = exec_chain(i);
    shell.counted = i % 2 == 0;  // half the shells ran without the shim
    prog.counted = i % 3 != 0;   // and a third of the programs
    a.add(shell);
    a.add(prog);
  }
  const RunFigures r = only_run(a);
  int without = 0;  // a chain with an image the shim did not count
  for (int i = 0; i < kChains; ++i) without += (i % 2 != 0 || i % 3 == 0) ? 1 : 0;
  EXPECT_EQ(r.processes, uint64_t(kChains));
  EXPECT_EQ(r.processes_without_shim, uint64_t(without));
  EXPECT_EQ(r.shim_processes, uint64_t(kChains - without));
  EXPECT_DOUBLE_EQ(r.cpu_s, 0.5 * kChains);
}

// Anon follows Resident's rule: the larger of the tree's concurrent peak and the
// largest single process.
TEST(Aggregate, AnonIsTheLargerOfTheTreePeakAndTheLargestProcess) {
  Aggregator a;
  ProcessRecord small = process(1, 10, 0.1, 1), large = process(2, 11, 0.1, 1);
  small.sampled_rss_anon_peak_bytes = 3 * kMiB;
  large.sampled_rss_anon_peak_bytes = 5 * kMiB;
  TreeRecord concurrent = tree(10, 20, 0);  // both ran at once: the tree saw more
  concurrent.sampled_rss_anon_peak_bytes = 7 * kMiB;
  a.add(small);
  a.add(large);
  a.add(concurrent);
  ProcessRecord brief = process(3, 30, 0.1, 1);  // a peak between two tree samples
  brief.sampled_rss_anon_peak_bytes = 9 * kMiB;
  TreeRecord missed = tree(30, 40, 0);
  missed.sampled_rss_anon_peak_bytes = 6 * kMiB;
  a.add(brief);
  a.add(missed);
  ProcessRecord alone = process(4, 50, 0.1, 1);  // no tree: the largest process
  alone.sampled_rss_anon_peak_bytes = 2 * kMiB;
  a.add(alone);
  a.add(process(5, 51, 0.1, 1));  // an older record without the key counts as 0
  auto ops = a.finish();
  ASSERT_EQ(ops.size(), 1u);
  ASSERT_EQ(ops[0].runs.size(), 3u);
  EXPECT_EQ(ops[0].runs[0].anon_bytes, 7 * kMiB);  // tree above the largest process
  EXPECT_EQ(ops[0].runs[1].anon_bytes, 9 * kMiB);  // process above the tree
  EXPECT_EQ(ops[0].runs[2].anon_bytes, 2 * kMiB);
  EXPECT_EQ(median_of_runs(ops[0].runs).anon_bytes, 7 * kMiB);
}

TEST(Aggregate, AnonFromRecordsWithAndWithoutTheKey) {
  auto ops = aggregate_file("anon.jsonl", Kept::kProcessRows);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].runs[0].anon_bytes, uint64_t(38.5 * kMiB));   // compile: the tree's
  EXPECT_EQ(ops[0].runs[0].resident_bytes, 52 * kMiB);           // the same rule
  EXPECT_EQ(ops[1].runs[0].anon_bytes, uint64_t(60.25 * kMiB));  // link: ld's own
  EXPECT_EQ(ops[1].runs[0].resident_bytes, 95 * kMiB);
  EXPECT_EQ(ops[2].runs[0].anon_bytes, 0u);  // strip: the record has no anon key
  ASSERT_EQ(ops[0].runs[0].process_rows.size(), 2u);
  EXPECT_EQ(ops[0].runs[0].process_rows[0].figures.anon_bytes, 30 * kMiB);
  EXPECT_EQ(ops[0].runs[0].process_rows[1].figures.anon_bytes, 10 * kMiB);
}

TEST(Aggregate, KeepsProcessRowsOnlyWhenAsked) {
  auto ops = aggregate_file("ops.jsonl", Kept::kProcessRows);
  ASSERT_EQ(ops[1].runs[0].process_rows.size(), 4u);
  const ProcessRow& sh = ops[1].runs[0].process_rows[0];
  EXPECT_EQ(sh.pid, 200);
  EXPECT_EQ(sh.program, "sh");
  EXPECT_EQ(sh.argv0, "sh");
  EXPECT_EQ(sh.end, "exec");
  EXPECT_EQ(sh.record, nullptr);  // --by process: the rows' cells only
  EXPECT_TRUE(aggregate_file("ops.jsonl")[1].runs[0].process_rows.empty());
}

TEST(Aggregate, KeepsTheWholeRecordsOnlyWhenAsked) {
  auto ops = aggregate_file("ops.jsonl", Kept::kProcessRecords);
  ASSERT_EQ(ops[1].runs[0].process_rows.size(), 4u);
  const ProcessRow& sh = ops[1].runs[0].process_rows[0];
  ASSERT_NE(sh.record, nullptr);
  EXPECT_EQ(sh.record->pid, 200);
  EXPECT_EQ(sh.record->argv, (std::vector<std::string>{"sh", "-c", "git commit"}));
}

}  // namespace
}  // namespace account
