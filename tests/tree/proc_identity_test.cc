// Who a watched process is (proc_identity.cc), read through a fake /proc
// (fake_tree.h): its exe, its arguments and its start, as a record keeps them.
#include "proc_identity.h"

#include <gtest/gtest.h>

#include <string>

#include "fake_tree.h"

namespace account {
namespace {

// The identity of `pid` as account watch reads it: its stat, then the rest.
Identity identity_of(FakeTree& proc, pid_t pid, CpuAndExit* stat) {
  ProcHandle h;
  h.pid = pid;
  EXPECT_TRUE(proc.stat(&h, stat));
  Identity id;
  read_identity(pid, *stat, &id, proc);
  return id;
}

TEST(ProcIdentity, ExeArgvAndParentFromProc) {
  FakeTree proc;
  proc.fork(0, 40, 1, 1);
  FakeTree::Process& p = proc.fork(40, 41, 1, 1);
  p.exe = "/usr/lib/git-core/git";
  p.cmdline = std::string("git\0upload-pack\0/srv/repo\0", 26);
  CpuAndExit stat;
  Identity id = identity_of(proc, 41, &stat);
  EXPECT_EQ(id.pid, 41);
  EXPECT_EQ(id.ppid, stat.ppid);
  EXPECT_STREQ(id.exe(), "/usr/lib/git-core/git");
  EXPECT_EQ(id.argc, 3);
  EXPECT_EQ(id.argv_len, 26u);
  EXPECT_FALSE(id.argv_truncated);
  EXPECT_EQ(id.start_realtime_ns, realtime_of_boot_ticks(stat.start_ticks));
}

TEST(ProcIdentity, ALongCommandLineIsCutAndSaidSo) {
  FakeTree proc;
  FakeTree::Process& p = proc.fork(0, 42, 1, 1);
  p.cmdline = "x" + std::string(kArgvCapacity + 100, 'a') + std::string(1, '\0');
  CpuAndExit stat;
  Identity id = identity_of(proc, 42, &stat);
  EXPECT_TRUE(id.argv_truncated);
  EXPECT_EQ(id.argv_len, kArgvCapacity);
  EXPECT_EQ(id.argc, 1);  // the cut ends the one argument
}

TEST(ProcIdentity, AProcessGoneReadsEmpty) {
  FakeTree proc;
  CpuAndExit stat{};
  Identity id;
  read_identity(43, stat, &id, proc);
  EXPECT_STREQ(id.exe(), "");
  EXPECT_EQ(id.argc, 0);
  EXPECT_EQ(id.argv_len, 0u);
}

}  // namespace
}  // namespace account
