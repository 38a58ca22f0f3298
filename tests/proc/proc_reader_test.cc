// proc/proc_reader.h on real processes: one whose main thread ended while a
// worker runs on (pthread_exit from main) is read as the live process it is,
// not as the zombie /proc/<pid> says it is; once every thread has ended it is
// a zombie, with the status the process ended with.
#include "proc_reader.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "sampling.h"

namespace account {
namespace {

constexpr size_t kBlock = size_t(32) << 20;
int g_ready[2], g_go[2];

void* worker(void*) {
  char* block = static_cast<char*>(
      mmap(nullptr, kBlock, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (block == MAP_FAILED) _exit(90);
  memset(block, 1, kBlock);
  char c = 1;
  if (write(g_ready[1], &c, 1) != 1) _exit(91);
  if (read(g_go[0], &c, 1) != 1) _exit(92);
  _exit(5);  // exit_group from the worker: the process's status
}

char state_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? 0 : text[close + 2];
}

// A process every thread of which has ended, not reaped yet: read as the
// zombie it is, with `wait_status` in its stat.
void expect_zombie(ProcReader& proc, ProcHandle* h, int wait_status) {
  MemoryNow now;
  ASSERT_TRUE(proc.statm(h, &now));
  EXPECT_EQ(now.size_bytes, 0u);
  EXPECT_EQ(h->thread, 0);
  CpuAndExit cpu;
  ASSERT_TRUE(proc.stat(h, &cpu));
  EXPECT_EQ(cpu.state, 'Z');
  EXPECT_EQ(cpu.exit_code, wait_status);
}

TEST(ProcReader, AProcessWhoseMainThreadEndedIsReadThroughALiveThread) {
  ASSERT_EQ(pipe(g_ready), 0);
  ASSERT_EQ(pipe(g_go), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pthread_t t;
    if (pthread_create(&t, nullptr, worker, nullptr) != 0) _exit(93);
    // The main thread's end as pthread_exit makes it, without unwinding
    // through the test's frames (a catch there would end the process).
    syscall(SYS_exit, 0);
  }
  ::close(g_ready[1]);  // a child that dies early: read returns 0, no hang
  ::close(g_go[0]);
  char c = 0;
  ASSERT_EQ(read(g_ready[0], &c, 1), 1);
  // The leader's end is asynchronous to the worker's: wait until /proc says Z.
  for (int i = 0; i < 2000 && state_of(child) != 'Z'; ++i) usleep(1000);
  ASSERT_EQ(state_of(child), 'Z') << "the main thread did not end";

  ProcHandle h;
  h.pid = child;
  ProcReader& proc = system_proc();
  ASSERT_TRUE(proc.open(&h));
  MemoryNow now;
  ASSERT_TRUE(proc.statm(&h, &now));
  EXPECT_GE(now.size_bytes, kBlock);
  EXPECT_GE(now.resident_bytes, kBlock);
  EXPECT_NE(h.thread, 0);
  CpuAndExit cpu;
  ASSERT_TRUE(proc.stat(&h, &cpu));
  EXPECT_NE(cpu.state, 'Z');
  MemoryPeaks peaks;
  ASSERT_TRUE(proc.status(&h, &peaks));
  EXPECT_GE(peaks.vm_peak_bytes, kBlock);
  EXPECT_GE(peaks.rss_peak_bytes, kBlock);

  // Every thread ends: a zombie, whose stat has the process's exit status.
  ASSERT_EQ(write(g_go[1], &c, 1), 1);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT), 0);
  expect_zombie(proc, &h, 5 << 8);
  ProcessWatch w;
  w.handle = h;
  Ending e = classify_death(proc, &w, Writer::kSampler);
  EXPECT_EQ(e.kind, EndKind::kExit);
  EXPECT_EQ(e.code, 5);
  proc.close(&w.handle);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_EQ(WEXITSTATUS(status), 5);
  for (int fd : {g_ready[0], g_go[1]}) ::close(fd);
}

// An ordinary zombie has no live thread to follow: it reads as one.
TEST(ProcReader, AZombieReadsAsOne) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(4);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT), 0);
  ProcHandle h;
  h.pid = child;
  ProcReader& proc = system_proc();
  ASSERT_TRUE(proc.open(&h));
  expect_zombie(proc, &h, 4 << 8);
  proc.close(&h);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
}

}  // namespace
}  // namespace account
