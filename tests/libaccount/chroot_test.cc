// libaccount/interpose_chroot.cc: a program chroot'ed where the shim's file
// is not starts without it, silently.
#include <gtest/gtest.h>
#include <unistd.h>

#include "shim_run.h"

namespace account::testing {
namespace {

// `chroot ROOT /hello jailed CODE` with the shim preloaded, records to the
// chroot's /records.jsonl; ROOT made by make_minimal_root.
ProgramResult chroot_hello(const std::string& root, bool with_shim, const char* code) {
  make_minimal_root(root, with_shim);
  ProgramOptions options;
  options.env = clean_env({{"ACCOUNT_OUTPUT", "/records.jsonl"}});
  options.preload = true;
  return run_program({"/usr/sbin/chroot", root, "/hello", "jailed", code}, options);
}

// chroot(1) into a directory without the shim, standalone: the loader has
// nothing to complain about in /hello (chroot took the shim out of its
// LD_PRELOAD once its root had moved), and chroot's own exec record goes to
// the output path inside the chroot. Before, /hello's stderr began with
// "ERROR: ld.so: object '.../libaccount.so' from LD_PRELOAD cannot be
// preloaded (cannot open shared object file): ignored.".
TEST(ShimChroot, AChrootWithoutTheShimStartsItsProgramWithoutIt) {
  if (geteuid() != 0) GTEST_SKIP() << "chroot needs root";
  TempDir dir;
  std::string root = dir.file("root");
  ProgramResult run = chroot_hello(root, false, "3");
  EXPECT_EQ(run.status, 3);
  EXPECT_EQ(run.out, "hello from jailed\n");
  EXPECT_EQ(run.err, "note\n");
  RecordFile records = read_records(root + "/records.jsonl");
  ASSERT_EQ(records.processes.size(), 1u);
  EXPECT_EQ(records.processes[0].exe, "/usr/sbin/chroot");
  EXPECT_EQ(records.processes[0].end, "exec");
}

// Where the shim is in the new root too, nothing changes: both images are
// recorded.
TEST(ShimChroot, AChrootWithTheShimKeepsIt) {
  if (geteuid() != 0) GTEST_SKIP() << "chroot needs root";
  TempDir dir;
  std::string root = dir.file("root");
  ProgramResult run = chroot_hello(root, true, "0");
  EXPECT_EQ(run.status, 0);
  EXPECT_EQ(run.err, "note\n");
  RecordFile records = read_records(root + "/records.jsonl");
  ASSERT_EQ(records.processes.size(), 2u);
  EXPECT_EQ(records.processes[1].exe, "/hello");
}

}  // namespace
}  // namespace account::testing
