// A fake /proc for the sampling engine's tests (sampling_test.cc): serves
// scripted statm/stat/status text, parsed by the real parsers of proc_files.h.
//
// account_proc is built without RTTI (the shim links no C++ runtime), so it
// emits no type_info for ProcReader. The fake's virtual functions are defined
// in fake_proc.cc, compiled with -fno-rtti as well: its vtable then needs no
// type_info, and the tests themselves are compiled as usual.
#pragma once

#include <stdint.h>

#include <optional>
#include <string>
#include <vector>

#include "proc_reader.h"

namespace account {

class FakeProc final : public ProcReader {
 public:
  // The text each file holds now; nullopt: it cannot be read (the process is gone).
  std::optional<std::string> statm_file, stat_file, status_file;
  // statm reads so far; every sampling tick reads statm first.
  uint64_t statm_calls = 0;
  // The tick (statm reads before it, minus one) of every stat and status read.
  std::vector<uint64_t> stat_at, status_at;

  // Opens nothing: the handle gets placeholder descriptors, never used.
  bool open(ProcHandle* h) override;
  void close(ProcHandle* h) override;
  bool statm(ProcHandle* h, MemoryNow* out) override;
  bool stat(ProcHandle* h, CpuAndExit* out) override;
  bool status(ProcHandle* h, MemoryPeaks* out) override;
};

// Scripted /proc text, as this machine's kernel writes it.
// /proc/PID/statm: "size resident shared text lib data dt", in pages.
std::string statm_text(uint64_t size, uint64_t resident, uint64_t shared);
// A zombie's statm: all zeros.
extern const char kZombieStatm[];
// /proc/PID/stat, all 52 fields: a live process (fields from a running `cat`)
// or a zombie (state 'Z', its memory fields zeroed). utime and stime (fields
// 14, 15) in clock ticks; field 52 the raw wait status.
std::string stat_text(char state, uint64_t utime, uint64_t stime, int wait_status);
// /proc/PID/status of a live process, with its Vm lines in kB.
std::string status_text(uint64_t peak_kb, uint64_t size_kb, uint64_t hwm_kb, uint64_t rss_kb);
// A zombie's status: no Vm lines.
extern const char kZombieStatus[];

// The real /proc, but for the last pid handed out (/proc/loadavg), which is
// what the test says: whether anything was forked between two ticks.
class LastPidSays final : public ProcReader {
 public:
  uint64_t pid = 1000;
  bool last_pid(int* loadavg_fd, uint64_t* out) override;
};

}  // namespace account
