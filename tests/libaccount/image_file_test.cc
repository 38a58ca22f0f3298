// image_file.cc as a unit: where an image under account run puts its parts.
#include "image_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "proc_pids.h"

namespace account {
namespace {

class ImagePartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/account-image-part-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
    ASSERT_EQ(setenv("ACCOUNT_RUN_DIR", dir_.c_str(), 1), 0);
    region_ = map_image_region(&place_);
    ASSERT_NE(region_, nullptr);
    ASSERT_TRUE(place_.in_file);
    adopt_image_region(place_);
  }
  void TearDown() override {
    unmap_image_region(region_);
    unlink(place_.path);
    rmdir(dir_.c_str());
    unsetenv("ACCOUNT_RUN_DIR");
  }

  off_t file_size() {
    struct stat st;
    return stat(place_.path, &st) == 0 ? st.st_size : -1;
  }

  // What another user does once the run removed the image's directory: the
  // image's path now names a file of theirs.
  void replace_file(uid_t owner, mode_t mode) {
    ASSERT_EQ(unlink(place_.path), 0);
    int fd = open(place_.path, O_RDWR | O_CREAT | O_EXCL, mode);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(fchmod(fd, mode), 0);
    ASSERT_EQ(fchown(fd, owner, owner), 0);
    close(fd);
  }

  std::string dir_;
  ImagePlace place_;
  Region* region_ = nullptr;
};

TEST_F(ImagePartTest, PartGoesIntoTheImagesOwnFile) {
  uint64_t offset = 1;
  void* p = map_image_part(8192, &offset);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(offset, image_round_up(kHeadBytes));
  EXPECT_EQ(file_size(), off_t(offset + 8192));
  std::memcpy(p, "part", 4);
  char seen[4] = {};
  int fd = open(place_.path, O_RDONLY);
  ASSERT_EQ(pread(fd, seen, 4, off_t(offset)), 4);
  close(fd);
  EXPECT_EQ(std::memcmp(seen, "part", 4), 0);
}

TEST_F(ImagePartTest, FileOfAnotherUserAtThePathGetsNothing) {
  ASSERT_EQ(geteuid(), 0u) << "making a file of another user needs root";
  replace_file(65534, 0666);
  uint64_t offset = 1;
  void* p = map_image_part(8192, &offset);
  ASSERT_NE(p, nullptr);  // the part stays in the process
  EXPECT_EQ(offset, 0u);  // and the run is told of no part in the file
  std::memset(p, 0x5a, 8192);
  EXPECT_EQ(file_size(), 0);
}

TEST_F(ImagePartTest, FileWithASecondNameGetsNothing) {
  // A hard link another user made to a file of ours is the same file under a
  // second name: the image's own file has one.
  replace_file(geteuid(), 0600);
  std::string other = dir_ + "/other";
  ASSERT_EQ(link(place_.path, other.c_str()), 0);
  uint64_t offset = 1;
  void* p = map_image_part(4096, &offset);
  unlink(other.c_str());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(offset, 0u);
  EXPECT_EQ(file_size(), 0);
}

TEST_F(ImagePartTest, GoneFileLeavesThePartInTheProcess) {
  ASSERT_EQ(unlink(place_.path), 0);
  uint64_t offset = 1;
  void* p = map_image_part(4096, &offset);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(offset, 0u);
  EXPECT_EQ(file_size(), -1);  // not made again
}

}  // namespace
}  // namespace account

namespace account {
namespace {

// The file's name says who the image is and when it started: the identity's
// start, the one its record and PackedInfo carry, not a second reading.
TEST(ImageFileName, NamesThePidsAndTheIdentitysStart) {
  char templ[] = "/tmp/account-image-name-XXXXXX";
  ASSERT_NE(mkdtemp(templ), nullptr);
  ASSERT_EQ(setenv("ACCOUNT_RUN_DIR", templ, 1), 0);
  uint64_t saved = g_identity.start_monotonic_ns;
  g_identity.start_monotonic_ns = 123456789;
  ImagePlace place;
  Region* region = map_image_region(&place);
  g_identity.start_monotonic_ns = saved;
  ASSERT_NE(region, nullptr);
  ASSERT_TRUE(place.in_file);
  adopt_image_region(place);
  ImageName name;
  std::string path = place.path;
  EXPECT_TRUE(parse_image_name(path.substr(path.rfind('/') + 1).c_str(), &name)) << path;
  EXPECT_EQ(name.pid, getpid());
  EXPECT_EQ(name.ppid, getppid());
  EXPECT_EQ(name.start_monotonic_ns, 123456789u);
  unmap_image_region(region);
  unlink(place.path);
  rmdir(templ);
  unsetenv("ACCOUNT_RUN_DIR");
}

// The images of a process that dropped root are in the run directory's user
// directory for its uid: u<uid>/<pid>-<ppid>-<start>.
TEST(ImageFileName, AUserDirectorysNameCarriesItsUid) {
  ImageName name;
  ASSERT_TRUE(parse_image_name("u65534/100-1-5", &name));
  EXPECT_EQ(name.pid, 100);
  EXPECT_EQ(name.ppid, 1);
  EXPECT_EQ(name.start_monotonic_ns, 5u);
  for (const char* bad : {"u65534/", "u/100-1-5", "u12x/100-1-5", "x1/100-1-5", "u1/u2/100-1-5"})
    EXPECT_FALSE(parse_image_name(bad, &name)) << bad;
  uid_t uid = 0;
  ASSERT_TRUE(parse_user_dir_name("u65534", &uid));
  EXPECT_EQ(uid, 65534u);
  for (const char* bad : {"u", "u65534/100-1-5", "v65534", "u-1", "u4294967295"})
    EXPECT_FALSE(parse_user_dir_name(bad, &uid)) << bad;
}

// A root image about to become nobody makes nobody's directory in the run's
// (nobody's own, 0700) and lets nobody through the run's (0711); nobody's
// image then makes its file there. A directory that is not a run's as
// account run makes it (0700, root's) is left alone.
TEST(UserDirectory, RootMakesItForTheUserItBecomesWhoseImageUsesIt) {
  if (geteuid() != 0) GTEST_SKIP() << "giving a directory to another user needs root";
  char templ[] = "/tmp/account-user-dir-XXXXXX";
  ASSERT_NE(mkdtemp(templ), nullptr);
  std::string run = templ, user_dir = run + "/u65534";
  ASSERT_EQ(setenv("ACCOUNT_RUN_DIR", templ, 1), 0);
  ASSERT_EQ(chmod(templ, 0755), 0);
  prepare_user_dir(65534);
  struct stat st;
  EXPECT_NE(lstat(user_dir.c_str(), &st), 0) << "made in a directory that is no run's";
  ASSERT_EQ(chmod(templ, 0700), 0);
  prepare_user_dir(0);  // root stays root: nothing to make
  EXPECT_NE(lstat((run + "/u0").c_str(), &st), 0);
  mode_t umask_before = umask(0777);  // a program's umask does not narrow it
  prepare_user_dir(65534);
  umask(umask_before);
  ASSERT_EQ(lstat(user_dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  ASSERT_EQ(lstat(templ, &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0711u);

  // As nobody, the image's Region goes into a file of nobody's directory.
  pid_t child = fork();
  if (child == 0) {
    forget_proc_pids();
    if (syscall(SYS_setresgid, 65534, 65534, 65534) != 0 ||
        syscall(SYS_setresuid, 65534, 65534, 65534) != 0)
      _exit(10);
    ImagePlace place;
    Region* region = map_image_region(&place);
    if (!region || !place.in_file) _exit(11);
    std::string path = place.path;
    if (path.rfind(user_dir + "/", 0) != 0) _exit(12);
    ImageName name;
    if (!parse_image_name(path.substr(run.size() + 1).c_str(), &name) || name.pid != getpid())
      _exit(13);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  int files = 0;
  if (DIR* d = opendir(user_dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      ++files;
      std::string file = user_dir + "/" + e->d_name;
      EXPECT_EQ(lstat(file.c_str(), &st), 0);
      EXPECT_EQ(st.st_uid, 65534u) << file;
      unlink(file.c_str());
    }
    closedir(d);
  }
  EXPECT_EQ(files, 1);
  rmdir(user_dir.c_str());
  rmdir(templ);
  unsetenv("ACCOUNT_RUN_DIR");
}

}  // namespace
}  // namespace account
