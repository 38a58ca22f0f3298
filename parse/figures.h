/// The figure registry: every figure a report can show, one entry each. Metric
/// names (--percentiles, --sort, --fail-on and the gate), table columns, how
/// a run sums its processes, how medians are taken, every export and the run
/// summary read this table; adding a figure is adding an entry (and its
/// RunFigures field): docs/architecture.md, "Adding a figure".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "aggregate.h"
#include "record.h"

namespace account {

/// The figures, in the registry's order (the order names are listed in).
enum class Metric {
  kWall,
  kCpu,
  kSize,
  kResident,
  kAnon,
  kHeap,
  kCopied,
  kMalloc,
  kMinorFaults,
  kMajorFaults,
  kVoluntaryCtxsw,
  kInvoluntaryCtxsw,
  kReadBytes,
  kWriteBytes,
  kRchar,
  kWchar,
  kCgroupMemoryPeak,
  kPidsPeak,
  kHeapAtExit,
  kHeapAtExitBlocks,
  kTemporaryAllocs,
  kTemporaryBytes,
};
inline constexpr size_t kFigureCount = 22;

/// How a run's figure comes from its processes' records.
enum class Summed {
  kSpan,             ///< none: the run's wall time (tree end - start, or its processes' span)
  kAddedOverImages,  ///< added, an exec'd image only when no later image of its pid is
                     ///< recorded (the exec-chain rule: the kernel's CPU and its
                     ///< other per-process counters survive exec)
  kAdded,            ///< added (saturating)
  /// The peak rule: the larger of the tree record's concurrent peak and the
  /// largest process's peak (a process's: the larger of the kernel's and the
  /// sampled one).
  kPeak,
  kLargest,  ///< the largest single process's
  kTree,     ///< the tree record's own (tree_counter): the kernel's, for the whole run
};

/// Which of an operation's counted runs its median is taken over.
enum class MedianOver {
  kRuns,      ///< every counted run
  kShimRuns,  ///< the runs where the shim counted some process (the others have none)
};

/// When a run's figure is unknown (never printed as 0).
enum class Known {
  kAlways,
  kWithShim,  ///< unknown when no process of the run had the shim
  /// unknown when 0: older records do not have the key (anon), or nothing
  /// sampled or read it (a peak of a process without the shim that ended
  /// before the first sample: no process has a peak of 0)
  kWhenRecorded,
  /// unknown when no record of the run carries the key (older writers;
  /// /proc/PID/io unreadable; no cgroup): its process_counter or tree_counter says
  kWhenPresent,
};

enum class Unit { kSeconds, kBytes, kCount };

/// A figure's column in the tables. Without a heading2 the figure is no column
/// of the text table: operation tables carry it in a CSV and JSON field after Runs.
struct FigureColumn {
  /// nullptr: shown by default; "anon": shown with --columns +anon, and then
  /// after every other column in CSV and JSON (the default header stays a prefix).
  const char* option;
  const char* heading1;  ///< first text-table heading line ("" under the Maximum span)
  const char* heading2;  ///< second text-table heading line; nullptr: no table column
  const char* markdown;
  size_t width, sep;
  int decimals;
};

struct Figure {
  Metric metric;
  const char* name;     ///< on the command line and in the gate's lines ("cpu")
  const char* key;      ///< the CSV and JSON key ("cpu_s")
  const char* heading;  ///< the figure alone ("CPU (s)": percentiles, pages)
  int decimals;         ///< decimals where the figure is printed alone
  Unit unit;            ///< seconds, or bytes (shown in MiB)
  Summed summed;
  MedianOver median;
  Known known;
  bool exact;  ///< counted exactly (else sampled or from the kernel's peaks)
  FigureColumn column;
  /// The record keys it is read from (libaccount/record_keys.h): process
  /// records, then the tree record's (nullptr where none).
  const char* process_keys[2];
  const char* tree_key;
  /// A process record's own figure (none for kSpan), by the unit.
  double (*process_seconds)(const ProcessRecord&);
  uint64_t (*process_bytes)(const ProcessRecord&);
  /// Known::kWhenPresent: the process record's figure, nullopt when it lacks the key.
  std::optional<uint64_t> (*process_counter)(const ProcessRecord&);
  /// The tree record's concurrent peak (kPeak), or what it adds for
  /// processes no record shows (kAddedOverImages; nullptr: nothing).
  uint64_t (*tree_peak)(const TreeRecord&);
  double (*tree_unseen)(const TreeRecord&);
  /// The run's value in RunFigures: one of the two is set, by the unit
  /// (`bytes` holds a count too, Unit::kCount).
  double RunFigures::*seconds;
  uint64_t RunFigures::*bytes;
  /// OpenMetrics gauge family (nullptr: not exported) and its help line.
  const char* openmetrics;
  const char* openmetrics_help;
  /// kAddedOverImages: what the tree record knows of the whole run's figure
  /// (CPU: wait4's rusage of the command, which holds processes without the
  /// shim and each process's exit after its record): the run's figure is the
  /// larger of the records' sum and this. nullptr, or nullopt: none.
  std::optional<double> (*tree_whole)(const TreeRecord&) = nullptr;
  /// Summed::kTree: the tree record's figure, nullopt when it lacks the key.
  std::optional<uint64_t> (*tree_counter)(const TreeRecord&) = nullptr;
  /// Counted only by the shim: partly counted, as Known::kWithShim figures
  /// are, when some process of the run ran without it.
  bool shim_counter = false;
  /// Counted by the shim's malloc family: unknown in a process whose malloc
  /// was not the shim's (RunFigures::malloc_unseen_processes).
  bool malloc_counter = false;
};

/// Every figure, in the registry's order (Metric's: figures()[size_t(m)] is m's).
std::span<const Figure> figures();
const Figure& figure(Metric m);

/// The figures the exports carry (those with an OpenMetrics name), in the
/// order of the report's CSV: the default table columns, then the fields
/// after Runs (wall).
std::vector<const Figure*> exported_figures();
/// The figure's key in base units, as JSON exports name it: "cpu_s", "size_bytes",
/// "minor_faults".
std::string base_key(const Figure& f);

/// The figure's bit in RunFigures::recorded.
constexpr uint32_t recorded_bit(Metric m) {
  return uint32_t(1) << unsigned(m);
}
static_assert(kFigureCount <= 32, "RunFigures::recorded has a bit per figure");

/// A process's peak of one figure: the kernel's where it keeps one, else (or
/// when sampling saw more) the sampled one.
uint64_t process_peak(uint64_t kernel, uint64_t sampled);
/// What the peak rule (Summed::kPeak) says, for help texts.
extern const char kPeakRuleText[];

/// A run's value of the figure in its base unit (seconds, bytes).
double base_value(const RunFigures& r, const Figure& f);

}  // namespace account
