/// Records as the tools read them back: one JSON object per line (see
/// docs/record-format.md). Reading validates types and required keys.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace account {

/// The sampled time series of a process image (`"timeline"`, with
/// ACCOUNT_TIMELINE=1 or `account run --timeline`): columns of equal length.
struct Timeline {
  std::vector<double> t_ms;                     ///< milliseconds since the image started
  std::vector<uint64_t> size_bytes, rss_bytes;  ///< each empty or as long as t_ms
  /// Non-zero: the points were moved to a TimelineSpool (timeline_spool.h).
  uint64_t spooled = 0;
};

/// One process image (`"kind": "process"`, the default when kind is absent).
struct ProcessRecord {
  /// The machine's name; "" in records without `host` (older writers), which
  /// group as one more host of their own, never with a named one.
  std::string host;
  int64_t pid = 0;
  int64_t ppid = 0;
  /// Its pid in a pid namespace below account run's, where pid and ppid are
  /// the run's (0: none).
  int64_t namespace_pid = 0;
  std::string exe;
  std::vector<std::string> argv;
  std::string test;
  std::string op;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  double cpu_user_s = 0;
  double cpu_sys_s = 0;
  uint64_t malloc_bytes = 0;
  uint64_t malloc_calls = 0;
  uint64_t free_calls = 0;
  uint64_t realloc_copied_bytes = 0;
  uint64_t copied_bytes = 0;
  uint64_t copied_calls = 0;
  uint64_t heap_peak_bytes = 0;
  uint64_t vm_peak_bytes = 0;
  uint64_t rss_peak_bytes = 0;
  uint64_t sampled_size_peak_bytes = 0;
  uint64_t sampled_rss_peak_bytes = 0;
  /// Peak of statm resident minus shared (anonymous memory); 0 when the record
  /// does not carry the key (an older writer) or nothing was sampled.
  uint64_t sampled_rss_anon_peak_bytes = 0;
  uint64_t samples = 0;
  double sampler_cpu_s = 0;
  std::string end;  // exit, exec, signal, killed
  std::optional<int64_t> exit_code;
  std::optional<int64_t> signal;
  std::string written_by;
  bool aborted = false;
  /// false (`"counted": false`, account watch): nothing ran inside the process,
  /// so its malloc and copy figures are unknown, not 0.
  bool counted = true;
  /// false (`"malloc_interposed": false`): the program's malloc was not the
  /// shim's (another allocator before it, or the executable's own), so its
  /// malloc-family figures are unknown, not 0; its copies were counted.
  bool malloc_interposed = true;
  /// The kernel's counters at the end (docs/counters.md); nullopt when the
  /// record does not carry the key (an older writer, /proc/PID/io unreadable).
  std::optional<uint64_t> minor_faults, major_faults;
  std::optional<uint64_t> voluntary_ctxsw, involuntary_ctxsw;
  std::optional<uint64_t> read_bytes, write_bytes, rchar, wchar;
  /// The shim's heap at the end (none after exec) and temporaries
  /// (docs/leaks.md); nullopt when the record does not carry the key.
  std::optional<uint64_t> heap_at_exit_bytes, heap_at_exit_blocks;
  std::optional<uint64_t> temporary_allocs, temporary_bytes;
  std::optional<Timeline> timeline;
};

/// One `account run` (`"kind": "tree"`): the whole process tree of a command.
struct TreeRecord {
  std::string host;  ///< as ProcessRecord::host
  std::string test;
  std::string op;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;       ///< the command's end (its own wall is end - start)
  uint64_t tree_end_ns = 0;  ///< the last process of the tree; 0 in older records
  uint64_t processes = 0;
  /// Processes of the tree that never had the shim (no image file: a static or
  /// set-user-ID program); 0 when absent.
  uint64_t processes_without_shim = 0;
  uint64_t sampled_size_peak_bytes = 0;
  uint64_t sampled_rss_peak_bytes = 0;
  uint64_t sampled_rss_anon_peak_bytes = 0;  ///< concurrent anon peak; 0 when absent
  uint64_t samples = 0;
  /// account run's own CPU for this run (its tree sampler); absent in older
  /// records and in account watch's.
  std::optional<double> sampler_cpu_s;
  /// account run: wait4's rusage of the command (it and every descendant it
  /// waited for): CPU, and ru_maxrss in bytes (the largest single process's
  /// resident peak, not the tree's); absent in older records.
  std::optional<double> waited_cpu_s;
  uint64_t waited_max_rss_bytes = 0;
  std::optional<int64_t> exit_code;
  std::optional<int64_t> signal;
  bool aborted = false;
  std::optional<int64_t> interrupted;  ///< the signal that interrupted account run
  /// The signals that are the command's normal stop (`account run --stop-signal`;
  /// TERM, INT, HUP to a watched root): ended by one, the run is stopped, not failed.
  std::vector<int64_t> stop_signals;
  std::vector<std::string> command;  ///< the command's argv; empty in older records
  /// account run's cgroup of the command: the kernel's memory peak (page
  /// cache and kernel memory included, docs/cgroup.md) and task peak; nullopt
  /// where the record has none.
  std::optional<uint64_t> cgroup_memory_peak_bytes;
  std::optional<uint64_t> pids_peak;
  uint64_t run = 0;  // 1-based repetition index within an `account run --repeat`
  /// account watch --tree: when the watch began (0 otherwise), the tree's
  /// processes no record shows and their CPU, and how they were counted
  /// ("proc_connector": exact; "loadavg": an upper bound; "": not a watch).
  uint64_t watch_start_ns = 0;
  uint64_t unseen_processes = 0;
  double unseen_cpu_s = 0;
  std::string unseen_source;
};

using Record = std::variant<ProcessRecord, TreeRecord>;

/// The record schema this account reads.
constexpr uint64_t kSchemaRead = 1;

/// Parses one line. On failure returns nullopt and puts a one-phrase reason
/// (e.g. "missing key \"pid\"", "not JSON: ...") in *reason.
std::optional<Record> parse_record(std::string_view line, std::string* reason);

/// The same as parse_record, for many lines: keeps the JSON parser and its
/// memory between calls, so reading a large file allocates little per line.
class RecordParser {
 public:
  RecordParser();
  ~RecordParser();
  RecordParser(const RecordParser&) = delete;
  RecordParser& operator=(const RecordParser&) = delete;

  std::optional<Record> parse(std::string_view line, std::string* reason);
  /// After a failed parse: the record's schema when it is newer than
  /// kSchemaRead (written by a later account), else 0.
  uint64_t newer_schema() const { return newer_schema_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t newer_schema_ = 0;
};

}  // namespace account
