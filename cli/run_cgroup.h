/// The command of one `account run` in cgroups of its own, so the kernel
/// keeps the tree's exact memory peak: every page charged to the group
/// between the command's exec and the tree's end, however short the spike
/// (docs/cgroup.md). cgroup v2 (memory.peak, pids.peak) where this process's
/// group hands the memory controller to its children, else the v1 memory
/// hierarchy (memory.max_usage_in_bytes) and, where the kernel keeps one,
/// the v1 pids hierarchy's pids.peak.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace account {

/// --cgroup: auto (when it can, else one line), off, require (else no run).
enum class CgroupMode { kAuto, kOff, kRequire };

/// Where this process's groups are: found once per account run.
struct CgroupPlace {
  std::string memory_parent;  ///< the directory the run's memory group is made in
  std::string memory_peak;    ///< its peak file's name: memory.peak or memory.max_usage_in_bytes
  std::string pids_parent;    ///< "" when the pids group is the memory group (v2) or none
  bool v2 = false;
};

/// This process's cgroup directories, from `proc`/mountinfo and
/// `proc`/cgroup; nullopt and *why when it has no memory controller.
std::optional<CgroupPlace> find_cgroup_place(std::string* why,
                                             const std::string& proc = "/proc/self");

struct CgroupPeaks {
  std::optional<uint64_t> memory_bytes;
  std::optional<uint64_t> pids;
};

class RunCgroup {
 public:
  /// Makes the run's groups (`account-run-PID-N`) under `place`; nullptr and
  /// *why when it cannot (not root, no delegated subtree, no peak file).
  /// Removes what runs SIGKILLed before left there first.
  static std::unique_ptr<RunCgroup> make(const CgroupPlace& place, unsigned run, std::string* why);
  ~RunCgroup();
  RunCgroup(const RunCgroup&) = delete;
  RunCgroup& operator=(const RunCgroup&) = delete;

  /// The open cgroup.procs files the command writes "0" into (itself) before
  /// its exec: async-signal-safe to use in a vfork child.
  const std::vector<int>& join_fds() const { return procs_fds_; }
  /// The kernel's peaks so far (after the tree's end: the run's).
  CgroupPeaks peaks() const;
  /// Moves processes still in the groups to the parent groups and removes
  /// the groups. The destructor does it unless release() was called.
  void remove();
  /// This process no longer removes the groups: a fork (the lingering
  /// sampler) that outlives it does.
  void release() { owned_ = false; }

 private:
  RunCgroup() = default;
  struct Group {
    std::string dir, parent;
  };
  std::vector<Group> groups_;
  std::vector<int> procs_fds_;
  std::string memory_peak_path_, pids_peak_path_;
  bool owned_ = true;
};

}  // namespace account
