// libaccount/shim_reach.h: a program exec'd where it cannot read the shim's
// file starts without it, silently, its LD_PRELOAD without the shim. Each
// program prints the LD_PRELOAD it got between brackets.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "shim_run.h"

namespace account::testing {
namespace {

namespace fs = std::filesystem;

// A copy of the shim in `dir` (mkdtemp's: 0700, root's), preloaded by path;
// records to /dev/null, which every user may write.
struct HiddenShim {
  TempDir dir;
  std::string path = dir.file("libaccount.so");
  HiddenShim() { fs::copy_file(ACCOUNT_SHIM_PATH, path); }
  ProgramResult run(const std::vector<std::string>& argv, const std::string& preload = "") const {
    ProgramOptions options;
    options.env = clean_env(
        {{"LD_PRELOAD", preload.empty() ? path : preload}, {"ACCOUNT_OUTPUT", "/dev/null"}});
    return run_program(argv, options);
  }
};

constexpr char kPrintPreload[] = "echo \"[$LD_PRELOAD]\"";

// runuser's child drops to nobody and execs sh, which cannot enter the
// shim's directory: before, sh's stderr began with "ERROR: ld.so: object
// '.../libaccount.so' from LD_PRELOAD cannot be preloaded (cannot open
// shared object file): ignored.".
TEST(ShimReach, AProgramThatDroppedRootStartsWithoutAShimItCannotRead) {
  if (geteuid() != 0) GTEST_SKIP() << "dropping root needs root";
  HiddenShim shim;
  ProgramResult run = shim.run({"runuser", "-u", "nobody", "--", "/bin/sh", "-c", kPrintPreload});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "[]\n");
  EXPECT_EQ(run.err, "");
}

// The other entries of LD_PRELOAD stay, in their order: ld.so's separators,
// ':' and ' ', both read; the new list is joined by ':'. (The shim first: a
// library before it would take the exec calls itself.)
TEST(ShimReach, TheOtherPreloadedLibrariesStay) {
  if (geteuid() != 0) GTEST_SKIP() << "dropping root needs root";
  HiddenShim shim;
  const std::string libc = "/lib/x86_64-linux-gnu/libc.so.6",
                    libm = "/lib/x86_64-linux-gnu/libm.so.6";
  ProgramResult run = shim.run({"runuser", "-u", "nobody", "--", "/bin/sh", "-c", kPrintPreload},
                               shim.path + ":" + libc + " " + libm);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "[" + libc + ":" + libm + "]\n");
  EXPECT_EQ(run.err, "");
}

// The shell of a mount namespace puts a tmpfs over the shim's directory
// (mount(8) ran with the shim, started before), then runs a program: its
// exec, in the shell's child, takes the shim out.
TEST(ShimReach, AProgramExecdWhereAMountHidTheShimStartsWithoutIt) {
  if (geteuid() != 0) GTEST_SKIP() << "a mount namespace needs root";
  HiddenShim shim;
  std::string script =
      "mount -t tmpfs none " + shim.dir.path() + " && /bin/sh -c '" + kPrintPreload + "'";
  ProgramResult run = shim.run({"unshare", "-m", "/bin/sh", "-c", script});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "[]\n");
  EXPECT_EQ(run.err, "");
}

// Where the program can read the shim, its LD_PRELOAD keeps it.
TEST(ShimReach, AProgramThatCanReadTheShimKeepsIt) {
  HiddenShim shim;
  ProgramResult run =
      shim.run({"/bin/sh", "-c", std::string("/bin/sh -c '") + kPrintPreload + "'"});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out, "[" + shim.path + "]\n");
  EXPECT_EQ(run.err, "");
}

}  // namespace
}  // namespace account::testing
