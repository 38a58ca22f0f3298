// The figure registry (figures.h): each entry's record keys are the keys its
// figure is read from, its summing and median rules are the ones applied, and
// every reader of figures (names, columns, exports) follows the registry.
#include "figures.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "metric.h"
#include "record.h"
#include "report_columns.h"

namespace account {
namespace {

constexpr uint64_t kMiB = 1 << 20;

// `json` (an object without its closing brace) with `key` set to `value`.
std::string with_key(std::string json, const std::string& key, const std::string& value) {
  std::string field = "\"" + key + "\":";
  size_t at = json.find(field);
  if (at == std::string::npos)
    json += "," + field + value;
  else
    json.replace(at + field.size(), json.find_first_of(",}", at) - at - field.size(), value);
  return json + "}";
}

// A process record with every figure 0 but `key`, set to `value`.
std::string process_line(int64_t pid, const std::string& key, const std::string& value) {
  return with_key(
      R"({"schema":1,"kind":"process","pid":)" + std::to_string(pid) +
          R"(,"ppid":1,"exe":"/bin/x","argv":["x"],"test":"t","op":"o","start_ns":1000000000,)"
          R"("end_ns":2000000000,"cpu_user_s":0,"cpu_sys_s":0,"malloc_bytes":0,"malloc_calls":0,)"
          R"("free_calls":0,"copied_bytes":0,"copied_calls":0,"heap_peak_bytes":0,)"
          R"("vm_peak_bytes":0,"rss_peak_bytes":0,"sampled_size_peak_bytes":0,)"
          R"("sampled_rss_peak_bytes":0,"samples":1,"end":"exit","exit_code":0)",
      key, value);
}

// A tree record of the run of process_line's records, with `key` set to `value`.
std::string tree_line(const std::string& key, const std::string& value) {
  return with_key(R"({"schema":1,"kind":"tree","test":"t","op":"o","start_ns":1000000000,)"
                  R"("end_ns":3000000000,"processes":2,"sampled_size_peak_bytes":0,)"
                  R"("sampled_rss_peak_bytes":0,"exit_code":0)",
                  key, value);
}

// `n` of the figure's unit as a record writes it: seconds, MiB (in bytes), a count.
std::string record_value(const Figure& f, uint64_t n) {
  return std::to_string(f.unit == Unit::kBytes ? n * kMiB : n);
}

RunFigures run_of(const std::vector<std::string>& lines) {
  Aggregator a;
  for (const std::string& l : lines) {
    std::string reason;
    std::optional<Record> r = parse_record(l, &reason);
    EXPECT_TRUE(r) << reason << ": " << l;
    if (r) a.add(*r);
  }
  std::vector<Operation> ops = a.finish();
  EXPECT_EQ(ops.size(), 1u);
  return ops.at(0).runs.at(0);
}

TEST(Figures, OneEntryPerMetricWithUniqueNamesKeysAndOneValue) {
  std::set<std::string> names, keys;
  ASSERT_EQ(figures().size(), kFigureCount);
  for (size_t i = 0; i < figures().size(); ++i) {
    const Figure& f = figures()[i];
    EXPECT_EQ(size_t(f.metric), i);
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_TRUE(keys.insert(f.key).second) << f.key;
    EXPECT_EQ(f.seconds != nullptr, f.unit == Unit::kSeconds) << f.name;
    EXPECT_EQ(f.bytes != nullptr, f.unit == Unit::kBytes || f.unit == Unit::kCount) << f.name;
    EXPECT_EQ(f.process_counter != nullptr || f.tree_counter != nullptr,
              f.known == Known::kWhenPresent)
        << f.name;
    EXPECT_EQ(f.tree_counter != nullptr, f.summed == Summed::kTree) << f.name;
    EXPECT_EQ(f.tree_counter != nullptr, f.tree_key && !f.process_keys[0]) << f.name;
    EXPECT_EQ(parse_metric(f.name), f.metric);
    EXPECT_EQ(f.tree_peak != nullptr, f.summed == Summed::kPeak) << f.name;
  }
}

// Each process key of a figure, set to 3 MiB (3 s, 3) in one record, is that
// figure of the run: the registry names the keys its reader reads.
TEST(Figures, EachProcessKeyIsReadIntoItsFigure) {
  for (const Figure& f : figures()) {
    if (f.summed == Summed::kSpan) continue;
    for (const char* key : f.process_keys) {
      if (!key) continue;
      RunFigures run = run_of({process_line(1, key, record_value(f, 3))});
      EXPECT_DOUBLE_EQ(metric_of(run, f.metric), 3.0) << f.name << " from " << key;
    }
  }
}

// The exec-chain rule for every figure added over images (CPU and the kernel's
// counters, which survive exec): an image that exec'd counts only when no
// later image of its pid is recorded, so pid 1's chain (2, then 3 in all) is 3,
// and with pid 2's 4 the run has 7, not 9.
TEST(Figures, AddedOverImagesCountsAnExecChainOnce) {
  for (const Figure& f : figures()) {
    if (f.summed != Summed::kAddedOverImages || !f.process_keys[0]) continue;
    std::string execd = process_line(1, f.process_keys[0], record_value(f, 2));
    execd.replace(execd.find(R"("end":"exit")"), 12, R"("end":"exec")");
    RunFigures run = run_of({execd, process_line(1, f.process_keys[0], record_value(f, 3)),
                             process_line(2, f.process_keys[0], record_value(f, 4))});
    EXPECT_DOUBLE_EQ(metric_of(run, f.metric), 7.0) << f.name;
    // The exec'd image alone (its successor ran without the shim) counts.
    RunFigures alone = run_of({execd});
    EXPECT_DOUBLE_EQ(metric_of(alone, f.metric), 2.0) << f.name;
  }
}

// Added figures add up over two processes; peaks and the largest take the
// larger; a peak figure's tree key raises the run above both processes.
TEST(Figures, SummedAsTheirRuleSays) {
  for (const Figure& f : figures()) {
    if (f.summed == Summed::kSpan || !f.process_keys[0]) continue;
    std::string two = record_value(f, 2);
    std::string three = record_value(f, 3);
    RunFigures run = run_of(
        {process_line(1, f.process_keys[0], two), process_line(2, f.process_keys[0], three)});
    bool added = f.summed == Summed::kAdded || f.summed == Summed::kAddedOverImages;
    EXPECT_DOUBLE_EQ(metric_of(run, f.metric), added ? 5.0 : 3.0) << f.name;
    if (f.summed != Summed::kPeak) continue;
    std::string tree = tree_line(f.tree_key, std::to_string(4 * kMiB));
    RunFigures with_tree = run_of(
        {tree, process_line(1, f.process_keys[0], two), process_line(2, f.process_keys[0], three)});
    EXPECT_DOUBLE_EQ(metric_of(with_tree, f.metric), 4.0) << f.name;
  }
}

// Medians over the shim's runs leave out a run no shim counted in, and those of
// a kernel counter a run whose records lack its key; the others take every run.
TEST(Figures, MediansOverTheRunsTheirRuleSays) {
  RunFigures shim, no_shim, other;
  shim.shim_processes = other.shim_processes = 1;
  no_shim.processes_without_shim = 1;
  for (const Figure& f : figures()) {
    if (f.seconds) {
      shim.*f.seconds = 1, other.*f.seconds = 3, no_shim.*f.seconds = 0;
    } else {
      uint64_t unit = f.unit == Unit::kBytes ? kMiB : 1;
      shim.*f.bytes = unit, other.*f.bytes = 3 * unit, no_shim.*f.bytes = 0;
    }
    if (f.known == Known::kWhenPresent) {
      shim.recorded |= recorded_bit(f.metric);
      other.recorded |= recorded_bit(f.metric);
    }
  }
  RunFigures m = median_of_runs({shim, no_shim, other});
  // A figure unknown when 0 (Known::kWhenRecorded: size, resident, anon) is
  // left out of the median where a run lacks it, as the shim's figures are
  // where a run had no shim, and a kernel counter where no record of a run
  // carries it (Known::kWhenPresent): the median of 1 and 3.
  for (const Figure& f : figures()) {
    bool left_out = f.median == MedianOver::kShimRuns || f.known == Known::kWhenRecorded ||
                    f.known == Known::kWhenPresent;
    EXPECT_DOUBLE_EQ(metric_of(m, f.metric), left_out ? 2.0 : 1.0) << f.name;
    EXPECT_TRUE(metric_counted(m, f.metric)) << f.name;
  }
  RunFigures none = median_of_runs({no_shim});
  for (const Figure& f : figures()) {
    if (f.known != Known::kWhenPresent) continue;
    EXPECT_FALSE(metric_counted(none, f.metric)) << f.name;
  }
}

// A kernel counter is unknown in a run none of whose records carries its key
// (an older writer), and a counted 0 where one record says 0.
TEST(Figures, AKernelCounterNoRecordCarriesIsUnknownNotZero) {
  for (const Figure& f : figures()) {
    if (f.known != Known::kWhenPresent || f.summed == Summed::kTree) continue;
    RunFigures without = run_of({process_line(1, "samples", "1")});
    EXPECT_FALSE(metric_counted(without, f.metric)) << f.name;
    RunFigures zero =
        run_of({process_line(1, f.process_keys[0], "0"), process_line(2, "samples", "1")});
    EXPECT_TRUE(metric_counted(zero, f.metric)) << f.name;
    EXPECT_EQ(metric_of(zero, f.metric), 0.0) << f.name;
  }
}

// A process whose malloc was not the shim's ("malloc_interposed": false):
// every malloc figure of the registry is unknown in a run of it alone, and
// counted from the other processes, marked partly counted, where another
// process's malloc was the shim's; its copies are counted either way. A
// median of such figures is over the runs that counted them.
TEST(Figures, AMallocNotTheShimsLeavesTheMallocFiguresUnknown) {
  size_t malloc_figures = 0;
  for (const Figure& f : figures()) {
    if (!f.process_keys[0] || f.summed == Summed::kSpan) continue;
    std::string unseen = process_line(1, f.process_keys[0], record_value(f, 3));
    unseen.insert(unseen.size() - 1, R"(,"malloc_interposed":false)");
    RunFigures alone = run_of({unseen});
    EXPECT_EQ(alone.malloc_unseen_processes, 1u) << f.name;
    EXPECT_EQ(metric_counted(alone, f.metric), !f.malloc_counter) << f.name;
    if (!f.malloc_counter) continue;
    ++malloc_figures;
    RunFigures mixed = run_of({unseen, process_line(2, f.process_keys[0], record_value(f, 2))});
    EXPECT_TRUE(metric_counted(mixed, f.metric)) << f.name;
    EXPECT_TRUE(metric_partly_counted(mixed, f.metric)) << f.name;
    EXPECT_DOUBLE_EQ(metric_of(mixed, f.metric), 2.0) << f.name;  // the unseen one's 3 left out
    EXPECT_EQ(uncounted_notes(mixed), "1 of 2 processes had a malloc not the shim's") << f.name;
    RunFigures m = median_of_runs({alone, mixed, mixed});
    EXPECT_DOUBLE_EQ(metric_of(m, f.metric), 2.0) << f.name;
    EXPECT_FALSE(metric_counted(median_of_runs({alone, alone}), f.metric)) << f.name;
  }
  // malloc, heap, heap at exit and its blocks, temporaries and their bytes.
  EXPECT_EQ(malloc_figures, 6u);
}

// A figure of the tree record alone (the cgroup's peaks): its key's value, 3
// in every run whatever the processes say; unknown where the tree record
// lacks it, a counted 0 where it says 0.
TEST(Figures, ATreeFigureIsTheTreeRecordsAndUnknownWithoutIt) {
  for (const Figure& f : figures()) {
    if (f.summed != Summed::kTree) continue;
    RunFigures run = run_of({tree_line(f.tree_key, record_value(f, 3)),
                             process_line(1, "samples", "1"), process_line(2, "samples", "1")});
    EXPECT_DOUBLE_EQ(metric_of(run, f.metric), 3.0) << f.name;
    RunFigures without = run_of({tree_line("samples", "1"), process_line(1, "samples", "1")});
    EXPECT_FALSE(metric_counted(without, f.metric)) << f.name;
    RunFigures zero = run_of({tree_line(f.tree_key, "0")});
    EXPECT_TRUE(metric_counted(zero, f.metric)) << f.name;
    EXPECT_EQ(metric_of(zero, f.metric), 0.0) << f.name;
  }
}

// The table's default columns and the --columns options are the registry's.
TEST(Figures, ColumnsAndOptionsComeFromTheRegistry) {
  std::vector<Metric> shown = figure_metrics({});
  std::vector<Metric> expected;
  std::string options;
  for (const Figure& f : figures()) {
    if (f.column.heading2 && !f.column.option) expected.push_back(f.metric);
    if (f.column.option) options += std::string(options.empty() ? "" : ",") + "+" + f.column.option;
  }
  EXPECT_EQ(shown, expected);
  std::string error;
  std::optional<ExtraColumns> all = parse_columns(options, &error);
  ASSERT_TRUE(all) << error;
  for (const Figure& f : figures()) EXPECT_EQ(all->shows(f), f.column.heading2 != nullptr);
}

}  // namespace
}  // namespace account
