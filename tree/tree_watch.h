/// account watch --tree: a running process (a server) and every process it
/// forks, sampled from outside with the tree sampler (tree_sampler.h) until
/// the tree ends or the watch is stopped. Each process image gets a record
/// composed by the same writer as every other record ("counted": false,
/// "written_by": "watch"), written when it ends; one tree record closes the
/// watch with the concurrent peaks and the processes no record shows.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sampling.h"  // kDefaultIntervalMs

namespace account {

struct TreeWatchRequest {
  pid_t pid = 0;  ///< the root
  std::string test, op;
  unsigned interval_ms = kDefaultIntervalMs;
  bool timeline = false;
  unsigned timeline_points = 2048;
  /// The watch ends when the root ends (what still runs is recorded as
  /// "running"); by default it ends when the last process of the tree ends.
  bool root_only_end = false;
  /// Use the netlink proc connector when it can be had (root); false: count
  /// unseen processes from /proc/loadavg, as without root.
  bool proc_connector = true;
  /// Signals that are the root's normal stop: the tree record's stop_signals.
  std::vector<int> stop_signals;
  int stop_fd = -1;  ///< readable: stop watching (Ctrl-C)
  /// Receives each record (one newline-terminated JSON line) when it is
  /// composed; false: it could not be written.
  std::function<bool(const std::string&)> write;
  /// Every snapshot_every_ms (the first after the first tick), `snapshot`
  /// gets what the watch would add to the records written so far if it
  /// stopped now: a "running" record of each live process and the tree
  /// record so far (--textfile and --push). 0: never.
  unsigned snapshot_every_ms = 0;
  std::function<void(const std::string& records)> snapshot;
};

struct TreeWatchOutcome {
  uint64_t records = 0;    ///< process records written (the tree record not counted)
  uint64_t processes = 0;  ///< distinct processes recorded
  uint64_t unseen_processes = 0;
  double unseen_cpu_s = 0;
  std::string unseen_source;  ///< "proc_connector" (exact) or "loadavg" (an upper bound)
  uint64_t samples = 0;
  uint64_t size_peak_bytes = 0, rss_peak_bytes = 0;  ///< concurrent, of the summed tree
  uint64_t write_failures = 0;
  double seconds = 0;
  bool stopped = false;       ///< stop_fd ended the watch
  uint64_t left_running = 0;  ///< processes recorded as "running"
};

/// Watches until the tree ends (or the root, with root_only_end) or stop_fd
/// is readable. nullopt (and *error) if there is no such process.
std::optional<TreeWatchOutcome> watch_tree(const TreeWatchRequest& request, std::string* error);

}  // namespace account
