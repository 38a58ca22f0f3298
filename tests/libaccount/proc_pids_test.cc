// proc_pids.cc as a unit: the pids a record names, in the run's namespace and
// in a pid namespace below it.
#include "proc_pids.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace account {
namespace {

TEST(ProcPids, InTheNamespaceOfProcTheyAreGetpidsOwn) {
  forget_proc_pids();
  const ProcPids& p = proc_pids();
  EXPECT_EQ(p.own, getpid());
  EXPECT_EQ(p.pid, getpid());
  EXPECT_EQ(p.ppid, getppid());
}

// A child that unshares its pid namespace forks the namespace's init, which
// sees itself as pid 1 of a parent it cannot see (0); /proc, still this one,
// names them both as the test does.
TEST(ProcPids, InAPidNamespaceBelowProcTheyAreTheOuterOnes) {
  if (geteuid() != 0) GTEST_SKIP() << "a pid namespace needs root";
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (unshare(CLONE_NEWPID) != 0) _exit(2);
    pid_t init = fork();
    if (init == 0) {
      forget_proc_pids();
      ProcPids seen = proc_pids();
      pid_t own_ppid = getppid();
      ssize_t n = write(report[1], &seen, sizeof seen);
      n += write(report[1], &own_ppid, sizeof own_ppid);
      _exit(n == ssize_t(sizeof seen + sizeof own_ppid) ? 0 : 3);
    }
    // After init's report: one pipe, one writer at a time.
    int status = 0;
    waitpid(init, &status, 0);
    ssize_t n = write(report[1], &init, sizeof init);
    _exit(n == ssize_t(sizeof init) && WIFEXITED(status) ? WEXITSTATUS(status) : 4);
  }
  close(report[1]);
  pid_t init = 0, own_ppid = -1;
  ProcPids seen;
  ASSERT_EQ(read(report[0], &seen, sizeof seen), ssize_t(sizeof seen));
  ASSERT_EQ(read(report[0], &own_ppid, sizeof own_ppid), ssize_t(sizeof own_ppid));
  ASSERT_EQ(read(report[0], &init, sizeof init), ssize_t(sizeof init));
  close(report[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(seen.own, 1);
  EXPECT_EQ(own_ppid, 0);
  EXPECT_EQ(seen.pid, init);
  EXPECT_EQ(seen.ppid, child);
}

}  // namespace
}  // namespace account
