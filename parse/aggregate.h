/// Aggregation of records into operations and runs, streaming: memory grows
/// with the number of operations and runs, not with the number of records.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "record.h"
#include "run_end.h"

namespace account {

struct ProcessRow;

/// The figures of one run of an operation (one tree record and its processes):
/// a field per figure of the registry (figures.h, which says how each is
/// summed), and what the run is.
struct RunFigures {
  std::string host;             ///< the machine every record of the run names ("": none)
  double cpu_s = 0;             ///< user + system, summed over processes
  uint64_t size_bytes = 0;      ///< max(tree sampled size peak, largest process peak)
  uint64_t resident_bytes = 0;  ///< max(tree sampled resident peak, largest process peak)
  uint64_t anon_bytes = 0;      ///< the same rule for anonymous resident (0: not recorded)
  uint64_t heap_bytes = 0;      ///< the largest single process's heap_peak_bytes
  uint64_t copied_bytes = 0;    ///< summed
  uint64_t malloc_bytes = 0;    ///< summed
  double wall_s = 0;            ///< tree end - start, or the span of the processes
  /// The run's window (realtime ns): the tree record's start_ns..end_ns, or
  /// the span of its processes; both 0 for a run with neither.
  uint64_t start_ns = 0, end_ns = 0;
  /// The kernel's counters (Known::kWhenPresent), summed over the processes
  /// whose records carry them; `recorded` has bit Metric for each that some
  /// process record of the run carried (else it is unknown, not 0).
  uint64_t minor_faults = 0, major_faults = 0;
  uint64_t voluntary_ctxsw = 0, involuntary_ctxsw = 0;
  uint64_t read_bytes = 0, write_bytes = 0, rchar_bytes = 0, wchar_bytes = 0;
  /// account run's cgroup of the command (Known::kWhenPresent): the kernel's peaks.
  uint64_t cgroup_memory_peak_bytes = 0, pids_peak = 0;
  /// The shim's heap at each process's end and temporaries (Known::kWhenPresent), summed.
  uint64_t heap_at_exit_bytes = 0, heap_at_exit_blocks = 0;
  uint64_t temporary_allocs = 0, temporary_bytes = 0;
  uint32_t recorded = 0;
  /// Distinct processes: an exec chain's images are one; with a tree record,
  /// at least the tree's count (which knows processes no record shows).
  uint64_t processes = 0;
  /// The processes of every run these figures are of: `processes` for one
  /// run, the sum over the runs in median_of_runs (beside the summed
  /// processes_without_shim, whose "N of M" note it is).
  uint64_t processes_over_runs = 0;
  /// Processes whose copies and allocations the shim counted (its records),
  /// and those it never ran in (static or set-user-ID programs, watched ones):
  /// copied, malloc and heap are unknown with no shim process. Summed over the
  /// runs in median_of_runs.
  uint64_t shim_processes = 0;
  uint64_t processes_without_shim = 0;
  /// Of shim_processes, those whose malloc was not the shim's (record key
  /// malloc_interposed): the malloc figures (Figure::malloc_counter) leave
  /// them out, and are unknown when no other process counted them.
  uint64_t malloc_unseen_processes = 0;
  bool has_tree = false;
  RunEnd end;           ///< the tree record's, or the root process's (run_end.h)
  std::string command;  ///< the tree's command, else the root process's argv, space-joined
  std::vector<ProcessRow> process_rows;  ///< only when the Aggregator keeps them
};

/// One process image as `--by process` shows it.
struct ProcessRow {
  int64_t pid = 0;
  std::string program;  ///< basename of exe
  std::string argv0;
  std::string end;  ///< exit, exec, signal, killed
  /// The image's own figures (figures.h: a process's values), as a run of one
  /// process (shim_processes 1, or processes_without_shim 1).
  RunFigures figures;
  /// The whole record (start, end, argv, timeline) for charts; null unless
  /// the Aggregator keeps records (Kept::kProcessRecords).
  std::shared_ptr<const ProcessRecord> record;
};

/// Every run of one (test, operation).
struct Operation {
  std::string test, op;
  std::vector<RunFigures> runs;
  /// No test and op labels: `op` holds the runs' command line instead.
  bool unlabelled = false;
};

/// The runs an operation's figures are computed from: the runs that did not
/// fail, or every run with `include_failed` (--include-failed).
std::vector<RunFigures> counted_runs(const Operation& op, bool include_failed);
/// How many of the operation's runs failed.
size_t failed_runs(const Operation& op);
/// Whether any run of any operation failed.
bool any_failed(const std::vector<Operation>& ops);

/// How one operation's row is computed from its runs: each column is the median
/// over the runs (the value itself for one run).
RunFigures median_of_runs(const std::vector<RunFigures>& runs);

/// Groups records into runs: a run is one tree record with the process records of
/// the same (test, op) and the same host whose start_ns lies in the tree's
/// [start_ns, tree_end_ns] (end_ns when tree_end_ns is absent or earlier). An
/// operation without tree records is one run per host made of all that host's
/// process records; processes of an operation with tree records that fall in no
/// tree's window form one more run per host, never pooled with a tree's run.
/// Records of different hosts never share a run, so pids (exec chains, the
/// root process) are only ever compared within one host. Records without a
/// host are one more host, "" (never matched with a named one).
///
/// Records without test and op labels are grouped by command line: each run
/// goes to the operation named by its tree record's `command` (the argv of the
/// run's earliest process where the tree record has none, or for processes
/// outside any tree), so two unlabelled commands are two operations.
///
/// CPU of a process that exec'd: the kernel's counters survive exec, so the next
/// image's record already includes the CPU of the one before; an `exec` record's
/// CPU counts only when no later image of that pid is recorded in the same run.
/// What an Aggregator keeps beside each run's figures.
enum class Kept {
  kRuns,            ///< the figures only (the operation table)
  kProcessRows,     ///< and a ProcessRow per image, without its record (--by process)
  kProcessRecords,  ///< and each row's whole record (charts, exports)
};

class Aggregator {
 public:
  explicit Aggregator(Kept kept = Kept::kRuns);
  ~Aggregator();
  Aggregator(const Aggregator&) = delete;
  Aggregator& operator=(const Aggregator&) = delete;

  void add(const Record& record);
  /// Processes still running as the records are read (the daemons of a run
  /// whose account run has returned): an image of one of them that exec'd
  /// awaits its next image's record, and is not one without the shim.
  void still_running(const std::vector<int64_t>& pids);
  /// The operations, tests in order of first appearance, each test's operations
  /// in order of first appearance; an operation's runs host by host, hosts in
  /// order of first appearance. Call once, after the last add.
  std::vector<Operation> finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace account
