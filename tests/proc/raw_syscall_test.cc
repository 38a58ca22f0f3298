// raw_syscall.h: the calls a process start and end make without glibc's
// wrappers must answer as the wrappers do, and never write errno.
#include "raw_syscall.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "proc_files.h"

namespace account {
namespace {

TEST(RawSyscall, AnswersAsTheLibcWrappers) {
  EXPECT_EQ(raw_getpid(), getpid());
  EXPECT_EQ(raw_getppid(), getppid());
  char link[256] = {};
  long n = raw_readlink("/proc/self/exe", link, sizeof link - 1);
  char expected[256] = {};
  ASSERT_GT(readlink("/proc/self/exe", expected, sizeof expected - 1), 0);
  EXPECT_EQ(n, long(std::string(expected).size()));
  EXPECT_STREQ(link, expected);
  errno = 0;
  EXPECT_EQ(raw_readlink("/no/such/link", link, sizeof link), -ENOENT);
  EXPECT_EQ(errno, 0);  // errno is the program's: never written
}

TEST(RawSyscall, ClocksAgreeWithTheVdso) {
  for (clockid_t clock : {CLOCK_REALTIME, CLOCK_MONOTONIC}) {
    timespec before, after;
    clock_gettime(clock, &before);
    uint64_t raw = raw_clock_ns(clock);
    clock_gettime(clock, &after);
    auto ns = [](const timespec& t) { return uint64_t(t.tv_sec) * 1000000000ull + t.tv_nsec; };
    // Read between two vDSO readings of the same clock.
    EXPECT_LE(ns(before), raw);
    EXPECT_LE(raw, ns(after));
  }
}

TEST(RawSyscall, FileCallsReturnMinusErrno) {
  errno = 0;
  EXPECT_EQ(raw_open("/no/such/dir/file", O_RDONLY), -ENOENT);
  EXPECT_EQ(raw_close(-1), -EBADF);
  EXPECT_EQ(errno, 0);
  int fd = raw_open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  char buf[64];
  EXPECT_GT(raw_pread(fd, buf, sizeof buf, 0), 0);
  struct stat st;
  EXPECT_EQ(raw_fstat(fd, &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(raw_flock(fd, LOCK_SH | LOCK_NB), 0);
  EXPECT_EQ(raw_close(fd), 0);
  EXPECT_EQ(raw_close(fd), -EBADF);
}

TEST(RawSyscall, BlockingSignalsLeavesGlibcsOwnTwo) {
  uint64_t saved = 0;
  raw_block_signals(&saved);
  sigset_t now;
  pthread_sigmask(SIG_SETMASK, nullptr, &now);
  EXPECT_TRUE(sigismember(&now, SIGTERM));
  EXPECT_TRUE(sigismember(&now, SIGUSR1));
  EXPECT_TRUE(sigismember(&now, SIGRTMIN));  // glibc's SIGRTMIN is 34: a user's
  raw_restore_signals(&saved);
  pthread_sigmask(SIG_SETMASK, nullptr, &now);
  EXPECT_FALSE(sigismember(&now, SIGTERM));
  // The kernel's view: 32 and 33 (SIGCANCEL, SIGSETXID) were never blocked.
  raw_block_signals(&saved);
  uint64_t blocked = 0;
  raw_syscall(SYS_rt_sigprocmask, SIG_BLOCK, 0, long(&blocked), 8);
  raw_restore_signals(&saved);
  EXPECT_EQ(blocked & (uint64_t(1) << 31), 0u);
  EXPECT_EQ(blocked & (uint64_t(1) << 32), 0u);
  EXPECT_EQ(blocked & (uint64_t(1) << (SIGKILL - 1)), 0u);  // asked for, never held
}

TEST(FdAboveStdio, MovesADescriptorOffZeroToTwo) {
  int saved_stdin = dup(0);
  ASSERT_GE(saved_stdin, 0);
  close(0);
  int fd = open_proc_file(0, "stat");  // would get 0
  EXPECT_GT(fd, 2);
  EXPECT_EQ(fcntl(0, F_GETFD), -1);  // 0 is left closed
  EXPECT_NE(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
  close(fd);
  dup2(saved_stdin, 0);
  close(saved_stdin);
}

}  // namespace
}  // namespace account
