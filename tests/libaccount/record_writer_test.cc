// How a process's record reaches the output (libaccount/record_writer.cc):
// whole whatever its size, and without writing the output's inode for a read.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "shim_run.h"

namespace account::testing {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  for (size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(text.substr(at, end - at));
  return lines;
}

// A record is composed on the stack when it fits kStackRecordBytes (3 KiB),
// else in a 16-KiB static buffer, else in a mapping: records from 1 KiB to
// 30 KiB (argv bytes below 0x20 take six bytes each, \u0001), each one whole
// line with the argv it was given.
TEST(RecordWriter, RecordsOfEverySizeAreWholeLines) {
  TempDir dir;
  std::vector<std::vector<std::string>> argvs;
  auto arg = [](size_t n, char c) { return std::string(n, c); };
  for (const std::string& last :
       {arg(100, 'a'), arg(1800, 'a'), arg(2000, 'a'), arg(2100, 'a'), arg(2200, 'a'),
        arg(2400, 'a'), arg(6000, 'a'), arg(2000, '\x01'), arg(5000, '\x01')})
    argvs.push_back({test_program("hello"), "size", "0", last});
  const std::string output = dir.file("records.jsonl");
  for (const auto& argv : argvs) {
    ProgramOptions options;
    options.env = clean_env({{"ACCOUNT_OUTPUT", output}});
    options.preload = true;
    ASSERT_EQ(run_program(argv, options).status, 0);
  }
  std::vector<std::string> lines = lines_of(slurp(output));
  ASSERT_EQ(lines.size(), argvs.size());
  bool below = false, above = false, static_room = false, mapped = false;
  for (const std::string& line : lines) {
    size_t n = line.size() + 1;
    below |= n < 3 * 1024;
    above |= n > 3 * 1024 && n < 4096;
    static_room |= n > 4096 && n < 16 * 1024;
    mapped |= n > 16 * 1024;
  }
  EXPECT_TRUE(below && above && static_room && mapped)
      << "the sizes do not span the stack room, a page and the static buffer";
  RecordFile records = read_records(output);
  ASSERT_EQ(records.processes.size(), argvs.size());
  EXPECT_TRUE(records.bad_lines.empty());
  for (size_t i = 0; i < argvs.size(); ++i) EXPECT_TRUE(records.processes[i].argv == argvs[i]) << i;
}

// An image in a chroot without /proc reads neither its VmPeak and VmHWM at
// its end nor a sample: its record leaves vm_peak_bytes and rss_peak_bytes
// out (unknown) and parses. Before, it said 0 for both. Standalone, the
// output path is the image's, inside the chroot: chroot's own exec record
// goes there too, written after chroot(2).
TEST(RecordWriter, AnImageThatCannotReadProcLeavesItsKernelPeaksOut) {
  if (geteuid() != 0) GTEST_SKIP() << "chroot needs root";
  TempDir dir;
  std::string root = dir.file("root");
  make_minimal_root(root);
  ProgramOptions options;
  options.env = clean_env({{"ACCOUNT_OUTPUT", "/records.jsonl"}});
  options.preload = true;
  ProgramResult run = run_program({"/usr/sbin/chroot", root, "/hello", "jailed", "0"}, options);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "hello from jailed\n");
  EXPECT_EQ(run.err, "note\n");
  std::vector<std::string> lines = lines_of(slurp(root + "/records.jsonl"));
  ASSERT_EQ(lines.size(), 2u);
  for (const std::string& line : lines) {
    EXPECT_EQ(line.find("\"vm_peak_bytes\""), std::string::npos) << line;
    EXPECT_EQ(line.find("\"rss_peak_bytes\""), std::string::npos) << line;
    EXPECT_NE(line.find("\"sampled_size_peak_bytes\":0,"), std::string::npos) << line;
  }
  RecordFile records = read_records(root + "/records.jsonl");
  EXPECT_TRUE(records.bad_lines.empty());
  ASSERT_EQ(records.processes.size(), 2u);
  EXPECT_EQ(records.processes[0].exe, "/usr/sbin/chroot");
  EXPECT_EQ(records.processes[0].end, "exec");
  // Named by the path it was exec'd by: /proc/self/exe is out of reach.
  EXPECT_EQ(records.processes[1].exe, "/hello");
  EXPECT_EQ(records.processes[1].vm_peak_bytes, 0u);
  EXPECT_EQ(records.processes[1].exit_code, 0);
}

timespec access_time(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_atim;
}

// Puts the file's access time a day before its modification time: the state
// in which relatime makes the next read write the inode.
void age_access_time(const std::string& path) {
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0) << path;
  timespec times[2] = {st.st_mtim, st.st_mtim};
  times[0].tv_sec -= 86400;
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

// Each record checks the output's last byte with a read. With relatime every
// such read of a file just appended to would write its inode; the shim opens
// its own output with O_NOATIME, so the access time stays where it was.
TEST(RecordWriter, AppendingLeavesTheOutputsAccessTimeAlone) {
  TempDir dir;
  const std::string control = dir.file("control");
  std::ofstream(control) << "x\n";
  age_access_time(control);
  timespec before = access_time(control);
  std::string read_back;
  std::getline(std::ifstream(control), read_back);
  timespec after = access_time(control);
  if (after.tv_sec == before.tv_sec && after.tv_nsec == before.tv_nsec)
    GTEST_SKIP() << dir.path() << " is on a file system that keeps no access times (noatime)";

  // Run directly: run_with_shim reads the output back, which is a read.
  const std::string output = dir.file("records.jsonl");
  ProgramOptions options;
  options.env = clean_env({{"ACCOUNT_OUTPUT", output}});
  options.preload = true;
  ASSERT_EQ(run_program({test_program("hello"), "ok", "0"}, options).status, 0);
  age_access_time(output);
  timespec aged = access_time(output);
  ASSERT_EQ(run_program({test_program("hello"), "ok", "0"}, options).status, 0);
  ASSERT_EQ(run_program({test_program("hello"), "ok", "0"}, options).status, 0);
  timespec now = access_time(output);
  EXPECT_EQ(line_count(output), 3u);
  EXPECT_EQ(now.tv_sec, aged.tv_sec);
  EXPECT_EQ(now.tv_nsec, aged.tv_nsec);
}

}  // namespace
}  // namespace account::testing
