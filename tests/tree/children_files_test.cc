// tree/children_files.h: the children lists the tree walk reads, parsed from
// scripted text and read from real children of this test.
#include "children_files.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace account {
namespace {

std::vector<pid_t> parsed(const char* text) {
  std::vector<pid_t> out;
  add_children_text(text, &out);
  return out;
}

TEST(ChildrenFiles, TheKernelsTextIsParsedWithoutAStream) {
  EXPECT_EQ(parsed(""), std::vector<pid_t>{});
  EXPECT_EQ(parsed("7"), std::vector<pid_t>{7});
  EXPECT_EQ(parsed("123 456 "), (std::vector<pid_t>{123, 456}));
  EXPECT_EQ(parsed("4194304 12 "), (std::vector<pid_t>{4194304, 12}));
}

// Children that wait for a byte on a pipe, then exit.
struct Children {
  std::vector<pid_t> pids;
  int release[2];
  explicit Children(int n) {
    EXPECT_EQ(pipe(release), 0);
    for (int i = 0; i < n; ++i) {
      pid_t pid = fork();
      if (pid == 0) {
        char c;
        close(release[1]);
        ssize_t r = read(release[0], &c, 1);
        _exit(r == 1 ? 0 : 1);
      }
      pids.push_back(pid);
    }
    close(release[0]);
  }
  void end_one() {
    ASSERT_EQ(write(release[1], "x", 1), 1);
    int status = 0;
    pid_t ended = wait(&status);
    pids.erase(std::find(pids.begin(), pids.end(), ended));
  }
  ~Children() {
    close(release[1]);
    for (pid_t pid : pids) waitpid(pid, nullptr, 0);
  }
};

std::vector<pid_t> sorted(std::vector<pid_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(ChildrenFiles, AKeptFileFollowsForksAndReaps) {
  Children kids(3);
  ChildrenFile file;
  EXPECT_EQ(sorted(read_children(getpid(), &file, true)), sorted(kids.pids));
  EXPECT_GE(file.task_fd, 0);  // kept open for the next read
  EXPECT_GE(file.children_fd, 0);
  EXPECT_TRUE(file.holds(file.children_fd));
  kids.end_one();
  EXPECT_EQ(sorted(read_children(getpid(), &file, true)), sorted(kids.pids));
  file.close();
  EXPECT_EQ(file.task_fd, -1);
  EXPECT_FALSE(file.holds(3));
}

TEST(ChildrenFiles, NotKeptTheyAreReadTheLongWay) {
  Children kids(2);
  ChildrenFile file;
  EXPECT_EQ(sorted(read_children(getpid(), &file, false)), sorted(kids.pids));
  EXPECT_EQ(file.task_fd, -1);
  EXPECT_EQ(sorted(children_of(getpid())), sorted(kids.pids));
}

TEST(ChildrenFiles, AProcessThatIsGoneHasNone) {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  ASSERT_EQ(waitpid(pid, nullptr, 0), pid);
  ChildrenFile file;
  EXPECT_TRUE(read_children(pid, &file, true).empty());
  EXPECT_EQ(file.task_fd, -1);
}

}  // namespace
}  // namespace account
