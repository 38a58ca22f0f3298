/// One run of account run's command: started under the shim in a cgroup of
/// its own, its tree sampled until it ends (or a lingering sampler takes over
/// its daemons), its tree record written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "record_writer.h"
#include "run_cgroup.h"
#include "run_guard.h"
#include "run_options.h"
#include "run_signals.h"

namespace account {

struct RunResult {
  int status = 0;  // raw wait status
  bool aborted = false;
  int interrupted = 0;                // the first signal account run got and passed on, 0: none
  uint64_t killed_after = 0;          // processes SIGKILLed when --kill-after ran out
  bool started = true;                // false: the command could not be run at all
  uint64_t start_ns = 0, end_ns = 0;  // the command's own: spawn to its end
  uint64_t tree_end_ns = 0;           // when the last process of the tree ended
  uint64_t processes = 0;
  uint64_t processes_without_shim = 0;
  uint64_t lost_image_files = 0;  // of those, processes that truncated their image file
  SampledPeaks peaks{};
  uint64_t own_cpu_ns = 0;     // account run's CPU for this run (the tree record's sampler_cpu_s)
  uint64_t waited_cpu_ns = 0;  // wait4's rusage of the command (waited_cpu_s)
  uint64_t waited_max_rss_bytes = 0;
  bool lingering = false;        // daemons outlive the command: a sampler writes the tree record
  std::vector<int64_t> running;  // lingering: the processes still running then
  uint64_t records_lost = 0;     // records that could not be written (the tree record too)
  std::string write_error;       // why the first of them was lost
  CgroupPeaks cgroup;            // the command's cgroup's (none without one)
  bool cgroup_failed = false;    // --cgroup=require could not be met: nothing ran
};

/// Runs the command once (the `run`th repetition), its records appended to
/// `path` (a temporary output: nobody reads what a lingering sampler writes).
RunResult run_once(const RunOptions& o, const std::string& path, unsigned run, RunSignals& signals,
                   bool temporary, RunGuard& guard);

/// The run's tree record, one line.
std::string tree_record(const RunOptions& o, const RunResult& r, unsigned run);

/// Where the runs' private image directories are made, first choice first.
std::vector<std::string> image_dir_bases();

}  // namespace account
