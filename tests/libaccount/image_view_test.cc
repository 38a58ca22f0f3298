// image_view.cc as a unit: a tree sampler's first look at an image file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include "image_file.h"

namespace account {
namespace {

class ImageFileLookTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/account-image-view-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
    path_ = dir_ + "/100-1-5";
  }
  void TearDown() override {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }

  // An image file as an image makes it: kHeadBytes, an initialized Region.
  void write_image(uint32_t state, uint32_t write_error, size_t size = kHeadBytes) {
    int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, off_t(size)), 0);
    if (size >= kHeadBytes) {
      void* p = mmap(nullptr, kHeadBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      ASSERT_NE(p, MAP_FAILED);
      Region* r = static_cast<Region*>(p);
      init_region(r);
      r->image_state = state;
      r->record_write_error = write_error;
      munmap(p, kHeadBytes);
    }
    close(fd);
  }

  std::string dir_, path_;
};

TEST_F(ImageFileLookTest, RecordedImageIsReadNotMapped) {
  write_image(kRecorded, 28);  // ENOSPC: the image's own write failed
  ImageFileView view;
  uint32_t err = 0;
  EXPECT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kRecorded);
  EXPECT_EQ(err, 28u);
  EXPECT_EQ(view.base, nullptr);
}

TEST_F(ImageFileLookTest, ImageThatExecdIsRecordedToo) {
  write_image(kExecPending, 0);
  ImageFileView view;
  uint32_t err = 99;
  EXPECT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kRecorded);
  EXPECT_EQ(err, 0u);
}

TEST_F(ImageFileLookTest, RunningImageIsMappedLive) {
  write_image(kRunning, 0);
  ImageFileView view;
  uint32_t err = 0;
  ASSERT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kMapped);
  ASSERT_NE(view.region, nullptr);
  EXPECT_EQ(view.mapped, kHeadBytes);
  // A shared mapping: what the image writes later is seen through it.
  int fd = open(path_.c_str(), O_RDWR);
  uint32_t recorded = kRecorded;
  ASSERT_EQ(pwrite(fd, &recorded, sizeof recorded, offsetof(Region, image_state)),
            ssize_t(sizeof recorded));
  close(fd);
  EXPECT_EQ(view.region->image_state, uint32_t(kRecorded));
  unmap_image_file(&view);
}

TEST_F(ImageFileLookTest, FileStillBeingSetUpOrMissingIsNotYetAnImage) {
  ImageFileView view;
  uint32_t err = 0;
  EXPECT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kNotYet);  // missing
  write_image(kRunning, 0, 0);  // created, not yet sized
  EXPECT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kNotYet);
  int fd = open(path_.c_str(), O_RDWR);
  ASSERT_EQ(ftruncate(fd, off_t(kHeadBytes)), 0);  // sized, Region not yet initialized
  close(fd);
  EXPECT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kNotYet);
  EXPECT_EQ(view.base, nullptr);
}

}  // namespace
}  // namespace account
