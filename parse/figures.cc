#include "figures.h"

#include <algorithm>

#include "../libaccount/record_keys.h"

namespace account {

const char kPeakRuleText[] = "the larger of the tree's concurrent peak and the largest process's";

uint64_t process_peak(uint64_t kernel, uint64_t sampled) {
  return std::max(kernel, sampled);
}

namespace {

// The figures in the order their names are listed; the table columns follow
// this order too (wall has none).
constexpr Figure kFigures[] = {
    {Metric::kWall,
     "wall",
     "wall_s",
     "Wall time (s)",
     3,
     Unit::kSeconds,
     Summed::kSpan,
     MedianOver::kRuns,
     Known::kAlways,
     true,
     {nullptr, nullptr, nullptr, nullptr, 0, 0, 3},
     {keys::kStartNs, keys::kEndNs},
     keys::kEndNs,
     nullptr,
     nullptr,
     nullptr,
     nullptr,
     &RunFigures::wall_s,
     nullptr,
     "account_wall_seconds",
     "Wall time of the command"},
    {Metric::kCpu,
     "cpu",
     "cpu_s",
     "CPU (s)",
     3,
     Unit::kSeconds,
     Summed::kAddedOverImages,
     MedianOver::kRuns,
     Known::kAlways,
     false,
     {nullptr, "", "CPU(s)", "CPU (s)", 6, 2, 2},
     {keys::kCpuUser, keys::kCpuSys},
     nullptr,
     [](const ProcessRecord& p) { return p.cpu_user_s + p.cpu_sys_s; },
     nullptr,
     nullptr,
     // account watch --tree: the CPU of processes no record shows.
     [](const TreeRecord& t) { return t.unseen_cpu_s; },
     &RunFigures::cpu_s,
     nullptr,
     "account_cpu_seconds",
     "CPU time (user + system) summed over the processes",
     [](const TreeRecord& t) { return t.waited_cpu_s; }},
    {Metric::kSize,
     "size",
     "size_mib",
     "Maximum size (MiB)",
     2,
     Unit::kBytes,
     Summed::kPeak,
     MedianOver::kRuns,
     Known::kWhenRecorded,
     false,
     {nullptr, "", "Size  ", "Max size (MiB)", 7, 2, 2},
     {keys::kVmPeak, keys::kSampledSizePeak},
     keys::kSampledSizePeak,
     nullptr,
     [](const ProcessRecord& p) {
       return uint64_t(process_peak(p.vm_peak_bytes, p.sampled_size_peak_bytes));
     },
     [](const TreeRecord& t) { return t.sampled_size_peak_bytes; },
     nullptr,
     nullptr,
     &RunFigures::size_bytes,
     "account_size_bytes",
     "Peak virtual size"},
    {Metric::kResident,
     "resident",
     "resident_mib",
     "Maximum resident (MiB)",
     2,
     Unit::kBytes,
     Summed::kPeak,
     MedianOver::kRuns,
     Known::kWhenRecorded,
     false,
     {nullptr, "", "Resident ", "Max resident (MiB)", 7, 2, 2},
     {keys::kRssPeak, keys::kSampledRssPeak},
     keys::kSampledRssPeak,
     nullptr,
     [](const ProcessRecord& p) {
       return uint64_t(process_peak(p.rss_peak_bytes, p.sampled_rss_peak_bytes));
     },
     [](const TreeRecord& t) { return t.sampled_rss_peak_bytes; },
     nullptr,
     nullptr,
     &RunFigures::resident_bytes,
     "account_resident_bytes",
     "Peak resident size"},
    // The kernel keeps no anonymous peak: the sampled one alone.
    {Metric::kAnon,
     "anon",
     "anon_mib",
     "Maximum anonymous resident (MiB)",
     2,
     Unit::kBytes,
     Summed::kPeak,
     MedianOver::kRuns,
     Known::kWhenRecorded,
     false,
     {"anon", "", "Anon  ", "Max anon (MiB)", 7, 2, 2},
     {keys::kSampledRssAnonPeak, nullptr},
     keys::kSampledRssAnonPeak,
     nullptr,
     [](const ProcessRecord& p) { return uint64_t(p.sampled_rss_anon_peak_bytes); },
     [](const TreeRecord& t) { return t.sampled_rss_anon_peak_bytes; },
     nullptr,
     nullptr,
     &RunFigures::anon_bytes,
     nullptr,
     nullptr},
    {Metric::kHeap,
     "heap",
     "heap_mib",
     "Largest heap peak (MiB)",
     2,
     Unit::kBytes,
     Summed::kLargest,
     MedianOver::kShimRuns,
     Known::kWithShim,
     true,
     {"heap", "", "Heap  ", "Max heap (MiB)", 7, 2, 2},
     {keys::kHeapPeak, nullptr},
     nullptr,
     nullptr,
     [](const ProcessRecord& p) { return uint64_t(p.heap_peak_bytes); },
     nullptr,
     nullptr,
     nullptr,
     &RunFigures::heap_bytes,
     nullptr,
     nullptr},
    {Metric::kCopied,
     "copied",
     "copied_mib",
     "Copied (MiB)",
     1,
     Unit::kBytes,
     Summed::kAdded,
     MedianOver::kShimRuns,
     Known::kWithShim,
     true,
     {nullptr, "Copied", "(MiB) ", "Copied (MiB)", 7, 3, 1},
     {keys::kCopiedBytes, nullptr},
     nullptr,
     nullptr,
     [](const ProcessRecord& p) { return uint64_t(p.copied_bytes); },
     nullptr,
     nullptr,
     nullptr,
     &RunFigures::copied_bytes,
     "account_copied_bytes",
     "Bytes copied by memcpy, memmove and friends"},
    {Metric::kMalloc,
     "malloc",
     "malloc_mib",
     "Malloc (MiB)",
     1,
     Unit::kBytes,
     Summed::kAdded,
     MedianOver::kShimRuns,
     Known::kWithShim,
     true,
     {nullptr, "Malloc", "(MiB) ", "Malloc (MiB)", 7, 2, 1},
     {keys::kMallocBytes, nullptr},
     nullptr,
     nullptr,
     [](const ProcessRecord& p) { return uint64_t(p.malloc_bytes); },
     nullptr,
     nullptr,
     nullptr,
     &RunFigures::malloc_bytes,
     "account_malloc_bytes",
     "Bytes requested from malloc and friends"},
};

}  // namespace

std::span<const Figure> figures() {
  return kFigures;
}

constexpr bool in_metric_order() {
  for (size_t i = 0; i < std::size(kFigures); ++i)
    if (kFigures[i].metric != Metric(i)) return false;
  return std::size(kFigures) == kFigureCount;
}
static_assert(in_metric_order(), "one entry per Metric, in Metric's order; kFigureCount of them");

const Figure& figure(Metric m) {
  return kFigures[size_t(m)];
}

std::vector<const Figure*> exported_figures() {
  std::vector<const Figure*> out;
  for (bool in_table : {true, false})
    for (const Figure& f : kFigures)
      if (f.openmetrics && (f.column.heading2 != nullptr) == in_table) out.push_back(&f);
  return out;
}

std::string base_key(const Figure& f) {
  return f.unit == Unit::kSeconds ? std::string(f.key) : std::string(f.name) + "_bytes";
}

double base_value(const RunFigures& r, const Figure& f) {
  return f.unit == Unit::kSeconds ? r.*f.seconds : double(r.*f.bytes);
}

}  // namespace account
