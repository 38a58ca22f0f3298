#include "fake_proc.h"

#include <stdio.h>

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

std::string statm_text(uint64_t size, uint64_t resident, uint64_t shared) {
  char buf[128];
  snprintf(buf, sizeof buf, "%llu %llu %llu 5 0 %llu 0\n", (unsigned long long)size,
           (unsigned long long)resident, (unsigned long long)shared,
           (unsigned long long)(size > 300 ? size - 300 : 0));
  return buf;
}

const char kZombieStatm[] = "0 0 0 0 0 0 0\n";

std::string stat_text(char state, uint64_t utime, uint64_t stime, int wait_status) {
  std::string u = std::to_string(utime), s = std::to_string(stime), w = std::to_string(wait_status);
  if (state == 'Z')
    return "4242 (my (prog)) Z 4200 4200 4100 0 -1 4227148 225 0 0 0 " + u + " " + s +
           " 0 0 20 0 1 0 153730 0 0 18446744073709551615 0 0 0 0 0 0 0 16781312 2 1 0 0 17 1 0 0"
           " 0 0 0 0 0 0 0 0 0 0 " +
           w + "\n";
  return "4242 (my (prog)) " + std::string(1, state) +
         " 4200 4200 4100 34816 -1 4194304 100 0 0 0 " + u + " " + s +
         " 0 0 20 0 1 0 153717 3133440 360 18446744073709551615 94192918257664 94192918277545"
         " 140721614871824 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94192918293552 94192918295168"
         " 94193868849152 140721614879368 140721614879388 140721614879388 140721614880747 " +
         w + "\n";
}

std::string status_text(uint64_t peak_kb, uint64_t size_kb, uint64_t hwm_kb, uint64_t rss_kb) {
  char buf[1024];
  snprintf(buf, sizeof buf,
           "Name:\tmy (prog)\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t4242\nNgid:\t0\n"
           "Pid:\t4242\nPPid:\t4200\nTracerPid:\t0\nUid:\t1000\t1000\t1000\t1000\n"
           "Gid:\t1000\t1000\t1000\t1000\nFDSize:\t64\nGroups:\t1000 \nNStgid:\t4242\n"
           "NSpid:\t4242\nNSpgid:\t4200\nNSsid:\t4100\nKthread:\t0\n"
           "VmPeak:\t%8llu kB\nVmSize:\t%8llu kB\nVmLck:\t       0 kB\nVmPin:\t       0 kB\n"
           "VmHWM:\t%8llu kB\nVmRSS:\t%8llu kB\nRssAnon:\t     292 kB\nRssFile:\t    1692 kB\n"
           "RssShmem:\t       0 kB\nVmData:\t     292 kB\nVmStk:\t     132 kB\n"
           "VmExe:\t     144 kB\nVmLib:\t    1956 kB\nVmPTE:\t      44 kB\nVmSwap:\t       0 kB\n"
           "Threads:\t1\nSigQ:\t0/96365\n",
           (unsigned long long)peak_kb, (unsigned long long)size_kb, (unsigned long long)hwm_kb,
           (unsigned long long)rss_kb);
  return buf;
}

const char kZombieStatus[] =
    "Name:\tmy (prog)\nState:\tZ (zombie)\nTgid:\t4242\nNgid:\t0\nPid:\t4242\nPPid:\t4200\n"
    "TracerPid:\t0\nThreads:\t1\nSigQ:\t0/96365\n";

}  // namespace account
