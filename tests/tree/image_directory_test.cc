// tree/image_directory.h: the run directory's names as the tree sampler sees
// them, through its inotify watch or, when the watch cannot tell, a listing.
#include "image_directory.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace account {
namespace {

struct TempDirectory {
  std::string path;
  TempDirectory() {
    char name[] = "/tmp/image-directory-test.XXXXXX";
    path = mkdtemp(name);
  }
  ~TempDirectory() { std::system(("rm -rf " + path).c_str()); }
  void create(const std::string& name) const { std::ofstream(path + "/" + name) << "x"; }
  void remove(const std::string& name) const { unlink((path + "/" + name).c_str()); }
};

std::vector<std::string> listed(ImageDirectory& dir) {
  std::vector<std::string> names;
  EXPECT_TRUE(dir.list(&names));
  names.erase(
      std::remove_if(names.begin(), names.end(), [](const std::string& n) { return n[0] == '.'; }),
      names.end());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ImageDirectory, TheFirstLookListsThenTheWatchSaysWhatChanged) {
  TempDirectory tmp;
  ImageDirectory dir(tmp.path);
  tmp.create("a");
  std::vector<std::string> created;
  std::set<std::string> removed;
  EXPECT_FALSE(dir.changes(&created, &removed));  // the first look: list instead
  EXPECT_EQ(listed(dir), std::vector<std::string>{"a"});

  created.clear();
  removed.clear();
  tmp.create("b");
  tmp.create("c");
  tmp.remove("a");
  ASSERT_TRUE(dir.changes(&created, &removed));
  std::sort(created.begin(), created.end());
  EXPECT_EQ(created, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(removed, std::set<std::string>{"a"});

  created.clear();
  removed.clear();
  ASSERT_TRUE(dir.changes(&created, &removed));  // nothing since
  EXPECT_TRUE(created.empty());
  EXPECT_TRUE(removed.empty());
  EXPECT_EQ(listed(dir), (std::vector<std::string>{"b", "c"}));  // the kept stream, rewound
}

TEST(ImageDirectory, RemoveStopsWatchingAndRemovesTheEmptyDirectory) {
  TempDirectory tmp;
  ImageDirectory dir(tmp.path);
  std::vector<std::string> names;
  ASSERT_TRUE(dir.list(&names));
  dir.remove();
  struct stat st;
  EXPECT_NE(stat(tmp.path.c_str(), &st), 0);
  std::vector<std::string> created;
  std::set<std::string> removed;
  EXPECT_FALSE(dir.changes(&created, &removed));
}

TEST(ImageDirectory, NoDirectoryFindsNothing) {
  ImageDirectory dir("");
  EXPECT_TRUE(dir.none());
  std::vector<std::string> names;
  EXPECT_FALSE(dir.list(&names));
  EXPECT_TRUE(names.empty());
  EXPECT_FALSE(dir.holds(0));
}

}  // namespace
}  // namespace account
