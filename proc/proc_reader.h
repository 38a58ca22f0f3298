/// /proc behind a small interface, so the sampling engine (sampling.h) can be
/// tested against a fake /proc: peaks, spikes between ticks, deaths, without
/// real processes or timing. Allocation-free and without the standard library:
/// the shim's per-image sampler uses it too.
#pragma once

#include <sys/types.h>

#include "proc_files.h"

namespace account {

/// One process's /proc files, kept open between ticks (re-read with pread).
struct ProcHandle {
  pid_t pid = 0;
  int statm_fd = -1;
  int stat_fd = -1;
  int status_fd = -1;
  int pidfd = -1;  // not owned: set by a sampler that holds one
  /// A thread whose statm and status are read instead of the process's: its
  /// leader thread has ended while others run (pthread_exit from main), so
  /// /proc/<pid> reads as a zombie's. 0: the process's own files.
  pid_t thread = 0;
};

class ProcReader {
 public:
  /// Opens statm and stat of h->pid; false if statm cannot be opened (gone
  /// already). status is opened at its first read: a process met in passing
  /// may end before anyone reads it.
  /// statm, stat and status read a process whose leader thread has ended
  /// while other threads run as the live process it is: its memory through
  /// a live thread's files, its CPU from its own stat (the sum over every
  /// thread), and never as a zombie.
  virtual bool open(ProcHandle* h);
  virtual void close(ProcHandle* h);
  virtual bool statm(ProcHandle* h, MemoryNow* out);
  virtual bool stat(ProcHandle* h, CpuAndExit* out);
  virtual bool status(ProcHandle* h, MemoryPeaks* out);
  /// The raw wait status of an ended process from its pidfd (PIDFD_INFO_EXIT,
  /// Linux 6.15): known even after its parent reaped it. False where the
  /// kernel does not keep it.
  virtual bool exit_status(ProcHandle* h, int* status);
  /// The last pid handed out (parse_loadavg_last_pid) through *loadavg_fd, the
  /// caller's descriptor of /proc/loadavg (opened here when -1).
  virtual bool last_pid(int* loadavg_fd, uint64_t* out);

 protected:
  ~ProcReader() = default;
};

/// The real /proc.
ProcReader& system_proc();

}  // namespace account
