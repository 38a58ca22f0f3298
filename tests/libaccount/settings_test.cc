// settings.cc as a unit: the environment walk and the packed identity.
#include "settings.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace account {
namespace {

TEST(FindEnv, MatchesTheWholeNameOnly) {
  setenv("ACCOUNT_UNIT_OPX", "longer", 1);
  setenv("ACCOUNT_UNIT_OP", "exact", 1);
  setenv("ACCOUNT_UNIT_EMPTY", "", 1);
  EXPECT_STREQ(find_env("ACCOUNT_UNIT_OP"), "exact");
  EXPECT_STREQ(find_env("ACCOUNT_UNIT_OPX"), "longer");
  EXPECT_STREQ(find_env("ACCOUNT_UNIT_EMPTY"), "");
  EXPECT_EQ(find_env("ACCOUNT_UNIT_O"), nullptr);
  EXPECT_EQ(find_env("ACCOUNT_UNIT_MISSING"), nullptr);
  // The same answers as getenv, which it replaces.
  for (const char* name : {"ACCOUNT_UNIT_OP", "ACCOUNT_UNIT_OPX", "PATH", "NO_SUCH_VARIABLE_X"})
    EXPECT_EQ(find_env(name), getenv(name)) << name;
  unsetenv("ACCOUNT_UNIT_OP");
  EXPECT_EQ(find_env("ACCOUNT_UNIT_OP"), nullptr);
}

std::string argv_of(const Identity& id) {
  return std::string(id.argv(), id.argv_len);
}

TEST(PackedIdentity, ArgvFollowsExeAndMovesWhenExeChanges) {
  Identity id;
  id.set_exe("/bin/sh", 7);
  const char args[] = "sh\0-c\0true";  // three arguments, NUL-separated
  id.set_argv(args, sizeof args);
  EXPECT_STREQ(id.exe(), "/bin/sh");
  EXPECT_EQ(id.argv(), id.text + 8);
  EXPECT_EQ(argv_of(id), std::string(args, sizeof args));
  EXPECT_EQ(id.text_used(), 8 + sizeof args);

  id.set_exe("/usr/lib/a/much/longer/path/to/sh", 33);  // argv moves right
  EXPECT_STREQ(id.exe(), "/usr/lib/a/much/longer/path/to/sh");
  EXPECT_EQ(argv_of(id), std::string(args, sizeof args));
  id.set_exe("/x", 2);  // and left
  EXPECT_STREQ(id.exe(), "/x");
  EXPECT_EQ(argv_of(id), std::string(args, sizeof args));
  EXPECT_EQ(id.text_used(), 3 + sizeof args);
}

TEST(PackedIdentity, CapacitiesAreKeptWhateverTheOtherUses) {
  Identity id;
  std::string long_exe(kPathCapacity + 10, 'e');
  id.set_exe(long_exe.data(), long_exe.size());
  EXPECT_EQ(id.exe_len, kPathCapacity - 1);
  std::string long_argv(kArgvCapacity + 10, 'a');
  id.set_argv(long_argv.data(), long_argv.size());
  EXPECT_EQ(id.argv_len, kArgvCapacity);
  // The longest exe and the longest argv fit together.
  EXPECT_LE(id.text_used(), sizeof id.text);
  EXPECT_EQ(id.exe()[kPathCapacity - 1], 0);
}

TEST(Clocks, TheShimsClocksAreTheSystemsClocks) {
  auto ns = [](clockid_t c) {
    timespec t;
    clock_gettime(c, &t);
    return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_nsec);
  };
  uint64_t before = ns(CLOCK_MONOTONIC), mono = monotonic_ns(), after = ns(CLOCK_MONOTONIC);
  EXPECT_LE(before, mono);
  EXPECT_LE(mono, after);
  before = ns(CLOCK_REALTIME);
  uint64_t real = realtime_ns();
  after = ns(CLOCK_REALTIME);
  EXPECT_LE(before, real);
  EXPECT_LE(real, after);
}

}  // namespace
}  // namespace account
