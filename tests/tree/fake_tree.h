// A fake /proc of a whole process tree, for the tree sampler's walk and tick
// (tree_walk_test.cc): processes with their memory, children and state, a
// last pid that moves only when the test forks, and pidfds (eventfds) that
// turn readable when a process ends. Files are served as the kernel writes
// them (fake_proc.h), read by the real parsers.
//
// Compiled with -fno-rtti, as fake_proc.cc is (ProcReader has no type_info).
#pragma once

#include <stdint.h>
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "proc_reader.h"
#include "proc_tree.h"

namespace account {

class FakeTree final : public ProcReader, public ProcTree {
 public:
  struct Process {
    pid_t parent = 0;
    uint64_t size_pages = 0, resident_pages = 0;
    std::string comm = "prog";
    std::string exe = "/usr/bin/prog";
    std::string cmdline = std::string("prog\0--flag\0", 12);
    bool zombie = false;
    int wait_status = 0;
    uint64_t utime = 0;        // clock ticks
    uint64_t start_ticks = 0;  // when it was forked: a pid handed out again starts later
    pid_t nested_pid = 0;      // its pid in a pid namespace below the run's (0: none)
    std::vector<pid_t> children;
    int pidfd = -1;  // an eventfd, written when the process ends
  };

  FakeTree() = default;
  FakeTree(const FakeTree&) = delete;
  FakeTree& operator=(const FakeTree&) = delete;
  ~FakeTree();

  /// `pid` forked by `parent` (0: none, the root of what the test builds),
  /// with `size_mib` of address space and `resident_mib` resident. A fork
  /// hands out a pid: the last pid moves.
  Process& fork(pid_t parent, pid_t pid, uint64_t size_mib, uint64_t resident_mib);
  void resize(pid_t pid, uint64_t size_mib, uint64_t resident_mib);
  /// The process ends with `wait_status`: a zombie until reaped; its pidfd polls readable.
  void end(pid_t pid, int wait_status);
  /// Its parent reaps it: gone from /proc; its children go to `new_parent`.
  void reap(pid_t pid, pid_t new_parent);

  // Reads so far.
  uint64_t statm_reads = 0, children_reads = 0;

  // ProcReader
  using ProcTree::stat;
  bool open(ProcHandle* h) override;
  void close(ProcHandle* h) override;
  bool statm(ProcHandle* h, MemoryNow* out) override;
  bool stat(ProcHandle* h, CpuAndExit* out) override;
  bool status(ProcHandle* h, MemoryPeaks* out) override;
  bool exit_status(ProcHandle* h, int* status) override;
  bool last_pid(int* loadavg_fd, uint64_t* out) override;
  // ProcTree
  std::vector<pid_t> children(pid_t pid, ChildrenFile* file, bool may_keep_open) override;
  std::vector<pid_t> all_children(pid_t pid) override;
  int open_pidfd(pid_t pid) override;
  bool stat(pid_t pid, CpuAndExit* out) override;
  pid_t nested_pid(pid_t pid) override;
  std::vector<pid_t> all_pids() override;
  std::string exe(pid_t pid) override;
  std::string cmdline(pid_t pid) override;

 private:
  Process* find(pid_t pid);
  std::map<pid_t, Process> procs_;
  uint64_t last_pid_ = 300;
  uint64_t forks_ = 0;
};

}  // namespace account
