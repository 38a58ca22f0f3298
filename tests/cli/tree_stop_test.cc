// cli/tree_stop: what a guard without process events does to the tree of a
// killed account run. Real processes: a listed one whose children (one in a
// session of its own) were never listed, and one that forks without pause.
#include "tree_stop.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>

namespace account {
namespace {

// Reaps every descendant that comes back to this process (a subreaper) until
// none is left, for at most 2 s; returns how they ended: their signals, and
// 0 for those still running then (killed here, so the test ends).
std::set<int> reap_all_signals() {
  std::set<int> signals;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid < 0) return signals;  // none left
    if (pid > 0) {
      signals.insert(WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    } else if (std::chrono::steady_clock::now() > deadline) {
      signals.insert(0);  // and each turn from now on, what came back since
      std::ifstream children("/proc/self/task/" + std::to_string(gettid()) + "/children");
      for (pid_t c; children >> c;) kill(c, SIGKILL);
      usleep(1000);
    } else {
      usleep(1000);
    }
  }
}

class TreeStopTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0); }
  void TearDown() override { prctl(PR_SET_CHILD_SUBREAPER, 0); }
};

TEST_F(TreeStopTest, ChildrenNeverListedAreKilledWithTheListedParent) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t listed = fork();
  if (listed == 0) {
    close(ready[0]);
    for (int i = 0; i < 2; ++i)
      if (fork() == 0) {
        if (i == 1) setsid();  // a daemon's own session
        pause();
        _exit(0);
      }
    ssize_t w = write(ready[1], "x", 1);
    (void)w;
    pause();
    _exit(0);
  }
  close(ready[1]);
  char c;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  close(ready[0]);
  EXPECT_EQ(stop_and_kill({listed}, std::chrono::milliseconds(300)), 3u);
  // The listed one, its child and its daemon: all ended by SIGKILL.
  EXPECT_EQ(reap_all_signals(), std::set<int>{SIGKILL});
}

TEST_F(TreeStopTest, AForkLoopIsStoppedBeforeItIsKilled) {
  pid_t listed = fork();
  if (listed == 0) {
    for (;;) {
      pid_t c = fork();
      if (c == 0) {
        pause();
        _exit(0);
      }
      usleep(500);
    }
  }
  usleep(50 * 1000);  // some children already
  size_t killed = stop_and_kill({listed}, std::chrono::milliseconds(300));
  EXPECT_GE(killed, 2u);
  // Nothing it forked escaped: every descendant ended by SIGKILL, and none is left.
  EXPECT_EQ(reap_all_signals(), std::set<int>{SIGKILL});
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
}

}  // namespace
}  // namespace account
