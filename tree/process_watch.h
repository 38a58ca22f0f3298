/// account watch: one process started without the shim (a server, a JVM),
/// sampled from outside with the sampling engine until it ends or the watch is
/// stopped, and its record composed by the same writer as every other record
/// ("counted": false, "written_by": "watch").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "sampling.h"  // kDefaultIntervalMs

namespace account {

struct WatchRequest {
  pid_t pid = 0;
  std::string test, op;
  unsigned interval_ms = kDefaultIntervalMs;
  bool timeline = false;
  unsigned timeline_points = 2048;
  int stop_fd = -1;  ///< readable: stop watching (Ctrl-C); the record says "running"
  /// Every snapshot_every_ms (the first once the first tick has read the
  /// process), `snapshot` gets the record as it would be written if the watch
  /// stopped now ("end": "running"), for --textfile and --push. 0: never.
  unsigned snapshot_every_ms = 0;
  std::function<void(const std::string& record)> snapshot;
};

struct WatchOutcome {
  std::string record;  ///< one JSON line, newline-terminated
  uint64_t samples = 0;
  uint64_t size_peak_bytes = 0, rss_peak_bytes = 0;
  double seconds = 0;  ///< how long the watch lasted
};

/// Watches until the process ends or stop_fd is readable. nullopt (and
/// *error) if there is no such process to watch.
std::optional<WatchOutcome> watch_process(const WatchRequest& request, std::string* error);

}  // namespace account
