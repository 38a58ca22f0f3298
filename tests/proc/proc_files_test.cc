#include "proc_files.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc_reader.h"

namespace account {
namespace {

TEST(ProcFiles, ParsesStatm) {
  MemoryNow m;
  ASSERT_TRUE(parse_statm("2500 700 300 10 0 400 0\n", &m));
  EXPECT_EQ(m.size_bytes, 2500u * uint64_t(sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(m.resident_bytes, 700u * uint64_t(sysconf(_SC_PAGESIZE)));
  EXPECT_FALSE(parse_statm("", &m));
  EXPECT_FALSE(parse_statm("12", &m));
}

TEST(ProcFiles, ParsesStatusPeaks) {
  const char* text =
      "Name:\tgit\nVmPeak:\t   12345 kB\nVmSize:\t  100 kB\nVmHWM:\t     678 kB\nVmRSS:\t 5 kB\n";
  MemoryPeaks p;
  ASSERT_TRUE(parse_status_peaks(text, &p));
  EXPECT_EQ(p.vm_peak_bytes, 12345u * 1024);
  EXPECT_EQ(p.rss_peak_bytes, 678u * 1024);
  // A zombie's status has no Vm lines.
  EXPECT_FALSE(parse_status_peaks("Name:\tgit\nState:\tZ (zombie)\n", &p));
}

// NSpid lists the pid in each namespace from the one of the /proc read down
// to the process's own.
TEST(ProcFiles, ParsesTheNestedPidOfAStatus) {
  EXPECT_EQ(parse_status_nested_pid("Name:\tsh\nNSpid:\t29139\t1\nNSsid:\t29139\t1\n"), 1);
  EXPECT_EQ(parse_status_nested_pid("NSpid:\t29141\t12\t3\nVmPeak:\t 100 kB\n"), 3);
  EXPECT_EQ(parse_status_nested_pid("Name:\tsh\nNSpid:\t4242\nNSpgid:\t4242\n"), 0);
  EXPECT_EQ(parse_status_nested_pid("Name:\tsh\nPid:\t4242\n"), 0);  // no NSpid line
  EXPECT_EQ(parse_status_nested_pid(""), 0);
}

TEST(ProcFiles, ParsesPeaksAndPresentOfAStatusInOnePass) {
  // A kernel's order; HugetlbPages and the lines after it are never looked at.
  const char* text =
      "Name:\tgit\nUmask:\t0022\nState:\tR (running)\nVmPeak:\t   20480 kB\n"
      "VmSize:\t   16384 kB\nVmLck:\t       0 kB\nVmPin:\t       0 kB\n"
      "VmHWM:\t    4096 kB\nVmRSS:\t    3072 kB\nRssAnon:\t    1024 kB\n"
      "RssFile:\t    1536 kB\nRssShmem:\t     512 kB\nVmData:\t     700 kB\n"
      "HugetlbPages:\t       0 kB\n";
  MemoryPeaks p;
  MemoryNow m;
  ASSERT_TRUE(parse_status(text, &p, &m));
  EXPECT_EQ(p.vm_peak_bytes, 20480u * 1024);
  EXPECT_EQ(p.rss_peak_bytes, 4096u * 1024);
  EXPECT_EQ(m.size_bytes, 16384u * 1024);
  EXPECT_EQ(m.resident_bytes, 3072u * 1024);
  EXPECT_EQ(m.shared_bytes, (1536u + 512u) * 1024);
  // The same figures as the two single-purpose parsers.
  MemoryPeaks p2;
  MemoryNow m2;
  ASSERT_TRUE(parse_status_peaks(text, &p2));
  ASSERT_TRUE(parse_status_now(text, &m2));
  EXPECT_EQ(p2.vm_peak_bytes, p.vm_peak_bytes);
  EXPECT_EQ(m2.shared_bytes, m.shared_bytes);
  // A line whose name only starts like a field's is not that field.
  MemoryPeaks p3;
  EXPECT_FALSE(parse_status_peaks("VmPeakX:\t 1 kB\nVmHWMs:\t 2 kB\n", &p3));
  // A zombie: no peaks, and the present is left alone.
  MemoryNow m3;
  m3.size_bytes = 7;
  EXPECT_FALSE(parse_status("Name:\tgit\nState:\tZ (zombie)\n", &p3, &m3));
  EXPECT_EQ(m3.size_bytes, 7u);
}

TEST(ProcFiles, ParsesStatWithAwkwardCommand) {
  // comm with spaces and a ')' ; fields 14/15 are utime/stime in ticks, 22 the start time,
  // 38 the exit signal, 52 the exit code.
  std::string text = "42 (a) b (c)) Z 7";
  for (int field = 5; field <= 52; ++field) {
    if (field == 14)
      text += " 250";
    else if (field == 15)
      text += " 50";
    else if (field == 16)
      text += " 30";
    else if (field == 17)
      text += " 4";
    else if (field == 52)
      text += " 9";
    else if (field == 22)
      text += " 123456";
    else if (field == 38)
      text += " 17";
    else if (field == 10)
      text += " 321";
    else if (field == 12)
      text += " 6";
    else
      text += " 0";
  }
  CpuAndExit c;
  ASSERT_TRUE(parse_stat(text.c_str(), &c));
  long hz = sysconf(_SC_CLK_TCK);
  EXPECT_EQ(c.state, 'Z');
  EXPECT_EQ(c.ppid, 7);
  EXPECT_EQ(c.user_ns, 250u * (1000000000u / uint64_t(hz)));
  EXPECT_EQ(c.sys_ns, 50u * (1000000000u / uint64_t(hz)));
  EXPECT_EQ(c.children_user_ns, 30u * (1000000000u / uint64_t(hz)));
  EXPECT_EQ(c.children_sys_ns, 4u * (1000000000u / uint64_t(hz)));
  EXPECT_EQ(c.exit_code, 9);
  EXPECT_EQ(c.start_ticks, 123456u);
  EXPECT_EQ(c.exit_signal, 17);
  EXPECT_EQ(c.minor_faults, 321u);
  EXPECT_EQ(c.major_faults, 6u);
  EXPECT_STREQ(c.comm, "a) b (c)");
}

TEST(ProcFiles, ParsesIoAndTheContextSwitchesOfStatus) {
  // Linux's /proc/PID/io, whole.
  KernelCounters k;
  ASSERT_TRUE(
      parse_io("rchar: 8397824\nwchar: 8388701\nsyscr: 13\nsyscw: 8\n"
               "read_bytes: 4096\nwrite_bytes: 8388608\ncancelled_write_bytes: 0\n",
               &k));
  EXPECT_TRUE(k.have_call_bytes);
  EXPECT_TRUE(k.have_storage);
  EXPECT_EQ(k.rchar, 8397824u);
  EXPECT_EQ(k.wchar, 8388701u);
  EXPECT_EQ(k.read_bytes, 4096u);
  EXPECT_EQ(k.write_bytes, 8388608u);
  // A kernel without task I/O accounting has no such lines.
  KernelCounters none;
  EXPECT_FALSE(parse_io("", &none));
  EXPECT_FALSE(none.have_call_bytes);

  // The switches come with the peaks; a zombie has them without the peaks.
  MemoryPeaks peaks;
  EXPECT_TRUE(
      parse_status_peaks("VmPeak:\t 8 kB\nVmHWM:\t 4 kB\nThreads:\t3\n"
                         "voluntary_ctxt_switches:\t120\nnonvoluntary_ctxt_switches:\t3\n",
                         &peaks));
  EXPECT_TRUE(peaks.have_ctxsw);
  EXPECT_EQ(peaks.voluntary_ctxsw, 120u);
  EXPECT_EQ(peaks.involuntary_ctxsw, 3u);
  MemoryPeaks zombie;
  EXPECT_FALSE(
      parse_status_peaks("State:\tZ (zombie)\nvoluntary_ctxt_switches:\t5\n"
                         "nonvoluntary_ctxt_switches:\t1\n",
                         &zombie));
  EXPECT_TRUE(zombie.have_ctxsw);
  EXPECT_EQ(zombie.voluntary_ctxsw, 5u);
  // status's Threads, read with the peaks and the present.
  MemoryPeaks p;
  MemoryNow m;
  parse_status("VmPeak:\t 8 kB\nVmHWM:\t 4 kB\nThreads:\t3\n", &p, &m);
  EXPECT_EQ(m.threads, 3u);
}

TEST(ProcFiles, ParsesTheLastPidOfLoadavg) {
  uint64_t pid = 0;
  EXPECT_TRUE(parse_loadavg_last_pid("0.26 0.80 0.84 1/234 5678\n", &pid));
  EXPECT_EQ(pid, 5678u);
  EXPECT_TRUE(parse_loadavg_last_pid("0.00 0.00 0.00 1/1 4194303", &pid));
  EXPECT_EQ(pid, 4194303u);
  EXPECT_FALSE(parse_loadavg_last_pid("", &pid));
  EXPECT_FALSE(parse_loadavg_last_pid("0.26 0.80 0.84 1/234 \n", &pid));
  EXPECT_FALSE(parse_loadavg_last_pid("garbage", &pid));
  EXPECT_FALSE(parse_loadavg_last_pid("0.26 0.80 0.84 1/234 0\n", &pid));
}

// /proc/PID/uid_map as the kernel prints it: each field right-aligned in 10
// columns, one line a range.
TEST(ProcFiles, UidMapMapsTheUidsOfItsRanges) {
  const char* initial = "         0          0 4294967295\n";
  EXPECT_TRUE(parse_uid_map_maps(initial, 0));
  EXPECT_TRUE(parse_uid_map_maps(initial, 65534));
  EXPECT_FALSE(parse_uid_map_maps(initial, 4294967295u));
  const char* two = "         0       1000          1\n     65534     100000         10\n";
  EXPECT_TRUE(parse_uid_map_maps(two, 0));
  EXPECT_FALSE(parse_uid_map_maps(two, 1));
  EXPECT_TRUE(parse_uid_map_maps(two, 65543));
  EXPECT_FALSE(parse_uid_map_maps(two, 65544));
  EXPECT_FALSE(parse_uid_map_maps("", 0));  // a new namespace's, until it is written
  EXPECT_FALSE(parse_uid_map_maps("         0       1000", 0));  // cut short
}

// Every fork hands out a pid, and the last one handed out is what the tree
// sampler compares between ticks to know that nothing was forked.
TEST(ProcFiles, TheLastPidMovesWithAFork) {
  int fd = -1;
  uint64_t before = 0, after = 0;
  ASSERT_TRUE(system_proc().last_pid(&fd, &before));
  ASSERT_GE(fd, 0);
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(system_proc().last_pid(&fd, &after));
  EXPECT_NE(after, before);
  close(fd);
}

TEST(ProcFiles, ReadsOwnFiles) {
  int fd = open_proc_file(0, "statm");
  ASSERT_GE(fd, 3);
  MemoryNow m;
  EXPECT_TRUE(read_statm(fd, &m));
  EXPECT_GT(m.resident_bytes, 0u);
  EXPECT_GE(m.size_bytes, m.resident_bytes);
  close(fd);
  EXPECT_LT(open_proc_file(0, "no-such-file"), 0);
}

}  // namespace
}  // namespace account
