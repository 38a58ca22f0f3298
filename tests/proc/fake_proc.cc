#include "fake_proc.h"

namespace account {

bool FakeProc::open(ProcHandle* h) {
  h->statm_fd = h->stat_fd = h->status_fd = 1000;
  return statm_file.has_value();
}

void FakeProc::close(ProcHandle* h) {
  h->statm_fd = h->stat_fd = h->status_fd = -1;
}

bool FakeProc::statm(ProcHandle*, MemoryNow* out) {
  ++statm_calls;
  return statm_file && parse_statm(statm_file->c_str(), out);
}

bool FakeProc::stat(ProcHandle*, CpuAndExit* out) {
  stat_at.push_back(statm_calls - 1);
  return stat_file && parse_stat(stat_file->c_str(), out);
}

bool FakeProc::status(ProcHandle*, MemoryPeaks* out) {
  status_at.push_back(statm_calls - 1);
  return status_file && parse_status_peaks(status_file->c_str(), out);
}

bool LastPidSays::last_pid(int*, uint64_t* out) {
  *out = pid;
  return true;
}

}  // namespace account
