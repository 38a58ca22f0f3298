// image_view.cc as a unit: a tree sampler's first look at an image file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>
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

// A file in a user directory (u<uid>/, where the images of a process that
// dropped root put theirs) is read only as that user's: a file of another
// user there (root's, or a second name of one) is never mapped, nor written.
TEST_F(ImageFileLookTest, AFileInAUserDirectoryIsReadOnlyAsThatUsersOwn) {
  if (geteuid() != 0) GTEST_SKIP() << "files of another user need root";
  std::string user_dir = dir_ + "/u65534";
  ASSERT_EQ(mkdir(user_dir.c_str(), 0700), 0);
  std::string in_dir = path_;
  path_ = user_dir + "/100-1-5";
  write_image(kRunning, 0);
  ImageFileView view;
  uint32_t err = 0;
  EXPECT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kNotYet);
  EXPECT_EQ(view.base, nullptr);
  EXPECT_FALSE(map_image_file(path_.c_str(), &view));
  ASSERT_EQ(chown(path_.c_str(), 65534, 65534), 0);
  ASSERT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kMapped);
  unmap_image_file(&view);
  std::string second = user_dir + "/100-1-6";
  ASSERT_EQ(link(path_.c_str(), second.c_str()), 0);
  EXPECT_EQ(look_at_image_file(second.c_str(), &view, &err), ImageFileLook::kNotYet);
  EXPECT_FALSE(map_image_file(path_.c_str(), &view));
  unlink(second.c_str());
  unlink(path_.c_str());
  rmdir(user_dir.c_str());
  path_ = in_dir;
}

// The image truncates its file under the sampler's mapping: the next read,
// which was a SIGBUS that ended the sampler, reads zeros, and the view says
// it is lost; a view of a whole file is not.
TEST_F(ImageFileLookTest, FileTruncatedUnderTheMappingReadsZerosAndIsLost) {
  write_image(kRunning, 0);
  ImageFileView view, other;
  uint32_t err = 0;
  ASSERT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kMapped);
  ASSERT_EQ(look_at_image_file(path_.c_str(), &other, &err), ImageFileLook::kMapped);
  EXPECT_EQ(view.region->magic, kRegionMagic);
  EXPECT_FALSE(image_file_lost(view));
  ASSERT_EQ(truncate(path_.c_str(), 0), 0);
  EXPECT_EQ(view.region->magic, 0u);
  EXPECT_EQ(view.region->image_state, 0u);
  EXPECT_TRUE(image_file_lost(view));
  EXPECT_FALSE(image_file_lost(other));  // not read since: still the file's mapping
  unmap_image_file(&view);
  unmap_image_file(&other);
}

// The packed identity is read where the file says it is (on the Region's
// first page, or at kInfoOffset for a long one), once published, and nowhere
// else: a damaged offset gives none.
TEST_F(ImageFileLookTest, PublishedInfoIsFoundWhereTheFileSays) {
  write_image(kRunning, 0);
  ImageFileView view;
  uint32_t err = 0;
  ASSERT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kMapped);
  Region* r = view.region;
  const char* base = reinterpret_cast<const char*>(r);
  r->info_offset = offsetof(Region, inline_info);
  EXPECT_EQ(published_info(view), nullptr);  // not published yet
  r->info_published = 1;
  EXPECT_EQ(reinterpret_cast<const char*>(published_info(view)),
            base + offsetof(Region, inline_info));
  EXPECT_LT(offsetof(Region, inline_info) + kInlineInfoBytes, size_t(4096));
  r->info_offset = kInfoOffset;
  EXPECT_EQ(reinterpret_cast<const char*>(published_info(view)), base + kInfoOffset);
  r->info_offset = kInfoOffset + 8;
  EXPECT_EQ(published_info(view), nullptr);
  r->info_offset = ~0ull;
  EXPECT_EQ(published_info(view), nullptr);
  unmap_image_file(&view);
}

TEST_F(ImageFileLookTest, FileStillBeingSetUpIsNotYetAnImageAndNoFileIsMissing) {
  ImageFileView view;
  uint32_t err = 0;
  EXPECT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kMissing);
  write_image(kRunning, 0, 0);  // created, not yet sized
  EXPECT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kNotYet);
  int fd = open(path_.c_str(), O_RDWR);
  ASSERT_EQ(ftruncate(fd, off_t(kHeadBytes)), 0);  // sized, Region not yet initialized
  close(fd);
  EXPECT_EQ(look_at_image_file(path_.c_str(), &view, &err), ImageFileLook::kNotYet);
  EXPECT_EQ(view.base, nullptr);
}

// What an image packs into its file comes back field by field, and its
// strings lie one after another: a usual image writes a few hundred bytes.
TEST(PackedInfo, RoundTripOfEveryField) {
  auto id = std::make_unique<Identity>();
  id->pid = 4242;
  id->ppid = 17;
  id->start_realtime_ns = 1796264488478412200ull;
  id->start_monotonic_ns = 49603739725107ull;
  copy_string(id->host, sizeof id->host, "build-host");
  id->set_exe("/usr/bin/git", 12);
  const char argv[] = "git\0commit\0-m\0a b";
  id->set_argv(argv, sizeof argv);  // with its final NUL
  id->argc = 4;
  id->argv_truncated = true;
  auto settings = std::make_unique<Settings>();
  settings->has_output = true;
  settings->timeline = true;
  settings->record_argv = false;
  settings->sample_ms = 7;
  settings->timeline_points = 99;
  settings->backtrace_depth = 12;
  settings->backtrace_min = 65536;
  copy_string(settings->test, sizeof settings->test, "clone");
  copy_string(settings->op, sizeof settings->op, "checkout");
  copy_string(settings->output, sizeof settings->output, "/tmp/out-%p.jsonl");

  auto packed = std::make_unique<PackedInfo>();
  std::memset(static_cast<void*>(packed.get()), 0xaa, sizeof *packed);
  pack_image_info(*id, *settings, packed.get());
  EXPECT_EQ(packed->exe_len + 1 + packed->argv_len + packed->test_len + packed->op_len +
                packed->output_len,
            13u + sizeof argv + 5 + 8 + 17);
  // packed_info_size is exactly what pack_image_info wrote: the text ends
  // there, and the bytes after it are untouched.
  size_t size = packed_info_size(*id, *settings);
  EXPECT_EQ(size, offsetof(PackedInfo, text) + 13u + sizeof argv + 5 + 8 + 17);
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(packed.get());
  EXPECT_EQ(bytes[size - 1], 'l');  // the last of the output, "/tmp/out-%p.jsonl"
  EXPECT_EQ(bytes[size], 0xaa);
  EXPECT_LE(size, kInlineInfoBytes);  // a usual image: on the Region's first page

  auto back = std::make_unique<ImageInfo>();
  unpack_image_info(*packed, back.get());
  const Identity& i = back->identity;
  EXPECT_EQ(i.pid, 4242);
  EXPECT_EQ(i.ppid, 17);
  EXPECT_EQ(i.start_realtime_ns, 1796264488478412200ull);
  EXPECT_EQ(i.start_monotonic_ns, 49603739725107ull);
  EXPECT_STREQ(i.host, "build-host");
  EXPECT_STREQ(i.exe(), "/usr/bin/git");
  EXPECT_EQ(i.argv_len, sizeof argv);
  EXPECT_EQ(std::string(i.argv(), i.argv_len), std::string(argv, sizeof argv));
  EXPECT_EQ(i.argc, 4);
  EXPECT_TRUE(i.argv_truncated);
  const Settings& s = back->settings;
  EXPECT_TRUE(s.has_output);
  EXPECT_TRUE(s.timeline);
  EXPECT_FALSE(s.record_argv);
  EXPECT_EQ(s.sample_ms, 7u);
  EXPECT_EQ(s.timeline_points, 99u);
  EXPECT_EQ(s.backtrace_depth, 12u);
  EXPECT_EQ(s.backtrace_min, 65536u);
  EXPECT_STREQ(s.test, "clone");
  EXPECT_STREQ(s.op, "checkout");
  EXPECT_STREQ(s.output, "/tmp/out-%p.jsonl");
}

// The longest identity and settings fit the packed text; lengths a damaged
// file claims beyond the capacities are cut, never read past the text.
TEST(PackedInfo, LongestStringsFitAndDamagedLengthsAreCut) {
  auto id = std::make_unique<Identity>();
  std::string exe(kPathCapacity - 1, 'e'), argv(kArgvCapacity, 'a');
  id->set_exe(exe.c_str(), exe.size());
  id->set_argv(argv.data(), argv.size());
  auto settings = std::make_unique<Settings>();
  std::string label(kLabelCapacity - 1, 'l'), out(kPathCapacity - 1, 'o');
  copy_string(settings->test, sizeof settings->test, label.c_str());
  copy_string(settings->op, sizeof settings->op, label.c_str());
  copy_string(settings->output, sizeof settings->output, out.c_str());
  auto packed = std::make_unique<PackedInfo>();
  pack_image_info(*id, *settings, packed.get());
  // Too long for the Region's first page: publish_image_info gives it its own.
  EXPECT_GT(packed_info_size(*id, *settings), kInlineInfoBytes);
  auto back = std::make_unique<ImageInfo>();
  unpack_image_info(*packed, back.get());
  EXPECT_EQ(std::string(back->identity.exe()), exe);
  EXPECT_EQ(std::string(back->identity.argv(), back->identity.argv_len), argv);
  EXPECT_EQ(std::string(back->settings.test), label);
  EXPECT_EQ(std::string(back->settings.op), label);
  EXPECT_EQ(std::string(back->settings.output), out);

  packed->test_len = packed->op_len = packed->output_len = 0xffffffffu;
  packed->exe_len = 0xffffffffu;
  packed->argv_len = ~0ull;
  unpack_image_info(*packed, back.get());
  EXPECT_EQ(strlen(back->identity.exe()), kPathCapacity - 1);
  EXPECT_EQ(back->identity.argv_len, kArgvCapacity);
  EXPECT_LT(strlen(back->settings.output), kPathCapacity);
}

}  // namespace
}  // namespace account
