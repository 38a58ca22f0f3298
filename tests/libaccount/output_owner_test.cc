// Whose file an output is (libaccount/output_owner.cc): the owner as stat
// shows it, and in a user namespace that does not map it, the kernel's owner
// test (O_NOATIME granted or not).
#include "output_owner.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace account {
namespace {

class OutputOwner : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(geteuid(), 0u) << "these tests compare root's files with nobody's";
    char dir[] = "/tmp/output_owner_test.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    roots_ = dir_ + "/root.jsonl";
    nobodys_ = dir_ + "/nobody.jsonl";
    for (const std::string* path : {&roots_, &nobodys_}) {
      int fd = open(path->c_str(), O_CREAT | O_WRONLY, 0666);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(fchmod(fd, 0666), 0);
      close(fd);
    }
    ASSERT_EQ(chown(nobodys_.c_str(), 65534, 65534), 0);
  }
  void TearDown() override {
    unlink(roots_.c_str());
    unlink(nobodys_.c_str());
    rmdir(dir_.c_str());
  }

  // What owned_by_another_user says of `path` opened with `flags`.
  static int another_users(const std::string& path, int flags) {
    int fd = open(path.c_str(), O_WRONLY | O_APPEND | flags);
    if (fd < 0) return -1;
    struct stat st;
    int result = fstat(fd, &st) == 0 ? owned_by_another_user(fd, st) : -1;
    close(fd);
    return result;
  }

  std::string dir_, roots_, nobodys_;
};

TEST_F(OutputOwner, TheInitialNamespaceMapsEveryUidButTheLast) {
  EXPECT_TRUE(uid_mapped(0));
  EXPECT_TRUE(uid_mapped(65534));
  EXPECT_TRUE(uid_mapped(4294967294u));
  EXPECT_FALSE(uid_mapped(4294967295u));  // "0 0 4294967295": the count stops before it
}

TEST_F(OutputOwner, RootsFileIsRootsAndNobodysIsAnothersWhereUidsAreMapped) {
  EXPECT_EQ(another_users(roots_, 0), 0);
  EXPECT_EQ(another_users(roots_, O_NOATIME), 0);
  EXPECT_EQ(another_users(nobodys_, 0), 1);
  EXPECT_EQ(another_users(nobodys_, O_NOATIME), 1);  // root may ask O_NOATIME of any file
  EXPECT_EQ(another_users("/dev/null", 0), 0);       // no user's
}

// In a child in a new user namespace with no mapping, both files show the
// owner 65534. Each check is one bit of the child's exit status.
TEST_F(OutputOwner, InANamespaceThatMapsNoOwnerTheKernelsOwnerTestDecides) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (unshare(CLONE_NEWUSER) != 0) _exit(255);
    struct stat st;
    int bits = 0;
    if (stat(roots_.c_str(), &st) != 0 || st.st_uid != 65534) bits |= 1;
    if (uid_mapped(65534) || uid_mapped(0)) bits |= 2;
    if (another_users(roots_, O_NOATIME) != 0) bits |= 4;      // granted: root's own
    if (another_users(roots_, 0) != 1) bits |= 8;              // not asked: unknown, refused
    if (another_users(nobodys_, O_NOATIME) != -1) bits |= 16;  // only the owner may ask
    if (another_users(nobodys_, 0) != 1) bits |= 32;
    // Map kernel uid 0 (this process's) to 65534 here: the owner is then known.
    int map = open("/proc/self/uid_map", O_WRONLY);
    if (map < 0 || write(map, "65534 0 1\n", 10) != 10) bits |= 64;
    if (map >= 0) close(map);
    if (!uid_mapped(65534) || uid_mapped(0) || uid_mapped(65535)) bits |= 128;
    _exit(bits);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_NE(WEXITSTATUS(status), 255) << "unshare(CLONE_NEWUSER) failed";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "failed checks, as bits: " << WEXITSTATUS(status);
}

}  // namespace
}  // namespace account
