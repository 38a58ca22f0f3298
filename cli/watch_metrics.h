/// account watch --textfile DIR and --push URL: the watch's records so far,
/// turned into metrics by `account export --format openmetrics`'s own code
/// (run_export_text) and published: DIR/account-watch-PID.prom replaced
/// atomically for node_exporter's textfile collector, and a PUT to a
/// Pushgateway. Both happen on threads of their own, so the sampler never
/// waits for them.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>

#include "change_warning.h"
#include "latest_worker.h"
#include "pushgateway.h"

namespace account {

/// Whether DIR can take the textfile: a temporary file is created in it and
/// removed again. Returns "" or the reason.
std::string probe_textfile_dir(const std::string& dir);

/// "account-watch-PID.prom".
std::string textfile_name(pid_t pid);

struct WatchMetricsOptions {
  pid_t pid = 0;
  std::string textfile_dir;        ///< "" for none
  std::optional<PushTarget> push;  ///< nullopt for none
  std::string hostname;            ///< the Pushgateway's instance label
};

class WatchMetrics {
 public:
  explicit WatchMetrics(WatchMetricsOptions options);
  ~WatchMetrics();

  /// A record the watch wrote (a process that ended): part of every later
  /// publication. Call from one thread, with snapshot and finish.
  void record_written(const std::string& line);
  /// The records the watch would add if it stopped now: published with the
  /// written ones (returns at once).
  void snapshot(const std::string& running_records);
  /// Publishes the written records (the watch's end) and waits until the
  /// textfile is written and the final push made or failed.
  void finish();

 private:
  void publish(const std::string& records);  // on the export thread

  WatchMetricsOptions options_;
  std::string written_;
  std::string push_path_;
  ChangeWarning textfile_warning_, push_warning_, export_warning_;
  /// The pusher is finished after the exporter, which feeds it.
  std::unique_ptr<LatestWorker> pusher_, exporter_;
};

}  // namespace account
