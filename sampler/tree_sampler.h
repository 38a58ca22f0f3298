/// Sampling a whole process tree: the summed size and resident memory of every
/// live descendant of a process, and the concurrent peaks of those sums.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <set>
#include <vector>

namespace account {

class TreeSampler {
 public:
  /// Samples the descendants of `root` (its children, theirs, ...). The
  /// shim's own sampler processes ("account-sampler", and the first clone that
  /// starts one) are not counted.
  explicit TreeSampler(pid_t root) : root_(root) {}

  /// One sample: walks the tree, sums statm, raises the peaks.
  void sample();

  uint64_t size_peak_bytes() const { return size_peak_; }
  uint64_t rss_peak_bytes() const { return rss_peak_; }
  uint64_t samples() const { return samples_; }
  /// Distinct processes seen in any sample.
  uint64_t processes_seen() const { return seen_.size(); }
  /// Live descendants in the last sample, and the shim samplers among them.
  const std::vector<pid_t>& live() const { return live_; }
  size_t samplers_alive() const { return samplers_alive_; }

 private:
  pid_t root_;
  uint64_t size_peak_ = 0;
  uint64_t rss_peak_ = 0;
  uint64_t samples_ = 0;
  std::set<pid_t> seen_;
  std::vector<pid_t> live_;
  size_t samplers_alive_ = 0;
};

/// Children of every thread of `pid` (from /proc/PID/task/TID/children).
std::vector<pid_t> children_of(pid_t pid);
/// True if `pid` is one of the shim's sampler processes.
bool is_shim_sampler(pid_t pid);

}  // namespace account
