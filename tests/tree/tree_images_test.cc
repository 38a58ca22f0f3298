// The tree sampler's image files (tree_images.cc) with a fake /proc
// (fake_tree.h) and a real run directory: an image file names its process,
// which is met at once; the tick raises the image's peaks in its file; an
// image that dies without its record gets one from the sampler, and its file
// is removed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "clock.h"
#include "fake_tree.h"
#include "image_file.h"
#include "tree_sampler.h"

namespace account {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr pid_t kRun = 100;

class TreeImagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char name[] = "/tmp/tree-images-test.XXXXXX";
    dir_ = mkdtemp(name);
    images_ = dir_ + "/images";
    std::filesystem::create_directory(images_);
    fallback_.settings.has_output = true;
    snprintf(fallback_.settings.output, sizeof fallback_.settings.output, "%s",
             (dir_ + "/records.jsonl").c_str());
    proc.fork(0, kRun, 1, 1);
    proc.fork(kRun, 101, 10, 4);  // with the shim: an image file
    proc.fork(kRun, 102, 20, 8);  // without
  }
  void TearDown() override {
    if (region_) munmap(region_, kHeadBytes);
    std::filesystem::remove_all(dir_);
  }

  // The image file `pid` makes as the shim does: a head, an initialized
  // Region; named with the pids it knows and its start (CLOCK_MONOTONIC).
  void make_image_file(pid_t pid, pid_t ppid = kRun) {
    file_ = images_ + "/" + std::to_string(pid) + "-" + std::to_string(ppid) + "-" +
            std::to_string(monotonic_ns());
    int fd = open(file_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, off_t(kHeadBytes)), 0);
    void* p = mmap(nullptr, kHeadBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    ASSERT_NE(p, MAP_FAILED);
    region_ = static_cast<Region*>(p);
    init_region(region_);
  }

  std::string records() const {
    std::ifstream in(dir_ + "/records.jsonl");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  FakeTree proc;
  ImageInfo fallback_;
  std::string dir_, images_, file_;
  Region* region_ = nullptr;  // the image's view of its file
};

TEST_F(TreeImagesTest, AnImageIsMetAtOnceAndItsPeaksRaisedInItsFile) {
  make_image_file(101);
  TreeSampler tree(kRun, images_, &fallback_, proc, proc);
  tree.tick();
  // Its image file made 101 known at the first tick: sampled, not only sighted.
  EXPECT_EQ(region_->sampled.size_bytes, 10 * kMiB);
  EXPECT_EQ(region_->sampled.rss_bytes, 4 * kMiB);
  EXPECT_EQ(tree.peaks().size_bytes, 10 * kMiB);  // 102 is only sighted
  EXPECT_EQ(tree.running_images(), 1u);
  proc.resize(101, 40, 30);
  tree.tick();
  tree.tick();
  EXPECT_EQ(region_->sampled.size_bytes, 40 * kMiB);
  EXPECT_EQ(region_->sampled.rss_bytes, 30 * kMiB);
  EXPECT_EQ(tree.peaks().size_bytes, 60 * kMiB);
  EXPECT_EQ(tree.processes_seen(), 2u);
  EXPECT_EQ(tree.processes_without_shim(), 1u);  // 102
}

TEST_F(TreeImagesTest, AnImageThatDiesWithoutItsRecordGetsOneAndItsFileGoes) {
  make_image_file(101);
  TreeSampler tree(kRun, images_, &fallback_, proc, proc);
  for (int i = 0; i < 3; ++i) tree.tick();  // insured at its second tick
  proc.end(101, SIGKILL);
  tree.tick();
  EXPECT_EQ(tree.records_written(), 1u);
  EXPECT_EQ(tree.running_images(), 0u);
  EXPECT_FALSE(std::filesystem::exists(file_));
  std::string text = records();
  EXPECT_NE(text.find("\"pid\":101,"), std::string::npos) << text;
  EXPECT_NE(text.find("\"end\":\"killed\",\"signal\":9,\"written_by\":\"sampler\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"sampled_size_peak_bytes\":10485760,\"sampled_rss_peak_bytes\":4194304"),
            std::string::npos)
      << text;
}

TEST_F(TreeImagesTest, AnImageThatWroteItsOwnRecordIsLeftToIt) {
  make_image_file(101);
  TreeSampler tree(kRun, images_, &fallback_, proc, proc);
  tree.tick();
  __atomic_store_n(&region_->image_state, uint32_t(kRecorded), __ATOMIC_RELEASE);
  proc.end(101, 0);
  tree.tick();
  tree.tick();
  EXPECT_EQ(tree.records_written(), 0u);
  EXPECT_EQ(records(), "");
  EXPECT_EQ(tree.running_images(), 0u);
  EXPECT_EQ(tree.processes_without_shim(), 1u);
}

// `unshare --pid --fork --mount-proc`: the namespace's init, 103 here, names
// its file "1-0-..." (its own /proc shows no parent). The run places it under
// 103 once a walk has sighted 103: sampled in its file, counted with the
// shim, its own record and the sampler's name it 103, child of the run.
TEST_F(TreeImagesTest, AnImageNamedInAPidNamespaceBelowTheRunsIsPlacedUnderTheRunsPid) {
  proc.fork(kRun, 103, 30, 12).nested_pid = 1;
  make_image_file(1, 0);
  TreeSampler tree(kRun, images_, &fallback_, proc, proc);
  tree.tick();  // its file is looked at before any walk has sighted 103
  EXPECT_EQ(region_->run_pid, 0);
  tree.tick();
  EXPECT_EQ(region_->run_pid, 103);
  EXPECT_EQ(region_->run_ppid, kRun);
  tree.tick();
  EXPECT_EQ(region_->sampled.size_bytes, 30 * kMiB);
  EXPECT_EQ(region_->sampled.rss_bytes, 12 * kMiB);
  EXPECT_EQ(tree.running_images(), 1u);
  EXPECT_EQ(tree.processes_seen(), 3u);
  EXPECT_EQ(tree.processes_without_shim(), 2u);  // 101 and 102: no image file here
  proc.end(103, SIGKILL);
  tree.tick();
  EXPECT_EQ(tree.records_written(), 1u);
  std::string text = records();
  EXPECT_NE(text.find("\"pid\":103,\"ppid\":100,"), std::string::npos) << text;
}

}  // namespace
}  // namespace account
