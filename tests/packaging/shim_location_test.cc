// Where account looks for libaccount.so (cli/shim_location.cc): the packaged
// /usr/bin/account finds /usr/lib/<multiarch>/libaccount.so with no variable set.
#include "shim_location.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

namespace fs = std::filesystem;

namespace {

bool contains(const std::vector<fs::path>& paths, const fs::path& p) {
  return std::find(paths.begin(), paths.end(), p) != paths.end();
}

TEST(ShimLocation, UsrBinAccountLooksInDebianMultiarchLibdir) {
  auto c = account::shim_candidates("/usr/bin/account");
  EXPECT_TRUE(contains(c, "/usr/lib/" ACCOUNT_MULTIARCH "/libaccount.so"));
  EXPECT_TRUE(contains(c, "/usr/lib/libaccount.so"));
}

#if defined(__x86_64__)
// The path issue 16 names, spelled out: an empty or wrong ACCOUNT_MULTIARCH
// would still pass the test above.
TEST(ShimLocation, UsrBinAccountLooksInX86_64LinuxGnu) {
  auto c = account::shim_candidates("/usr/bin/account");
  EXPECT_TRUE(contains(c, "/usr/lib/x86_64-linux-gnu/libaccount.so"));
}
#endif

TEST(ShimLocation, BuildTreeComesFirst) {
  auto c = account::shim_candidates("/src/build/cli/account");
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front(), fs::path("/src/build/libaccount/libaccount.so"));
}

TEST(ShimLocation, CandidatesAreDistinct) {
  auto c = account::shim_candidates("/usr/local/bin/account");
  for (auto i = c.begin(); i != c.end(); ++i) EXPECT_EQ(std::count(c.begin(), c.end(), *i), 1);
}

// A /usr tree as the .deb installs it, under a temporary root.
TEST(ShimLocation, FindsThePackagedShimWithoutVariables) {
  fs::path root = fs::temp_directory_path() / ("shim_location_test." + std::to_string(getpid()));
  fs::create_directories(root / "usr/bin");
  fs::create_directories(root / "usr/lib" / ACCOUNT_MULTIARCH);
  std::ofstream(root / "usr/lib" / ACCOUNT_MULTIARCH / "libaccount.so") << "x";
  unsetenv("ACCOUNT_LIB");
  std::string error;
  std::string found = account::find_shim_for(root / "usr/bin/account", &error);
  EXPECT_EQ(found, (root / "usr/lib" / ACCOUNT_MULTIARCH / "libaccount.so").string()) << error;
  fs::remove_all(root);
}

// The guard: next to account (the build tree, /usr/bin), then the libexec
// directories under account's prefix (/usr/libexec, as in the .deb).
TEST(GuardLocation, NextToAccountFirstThenLibexec) {
  auto c = account::guard_candidates("/usr/bin/account");
  ASSERT_GE(c.size(), 2u);
  EXPECT_EQ(c[0], fs::path("/usr/bin/account-guard"));
  EXPECT_TRUE(contains(c, "/usr/libexec/account-guard"));
  for (const fs::path& p : c) EXPECT_EQ(p.filename(), "account-guard");
  EXPECT_EQ(account::guard_candidates("/src/build/cli/account").front(),
            fs::path("/src/build/cli/account-guard"));
}

TEST(ShimLocation, AccountLibWins) {
  setenv("ACCOUNT_LIB", "/nonexistent/libaccount.so", 1);
  std::string error;
  EXPECT_EQ(account::find_shim_for("/usr/bin/account", &error), "");
  EXPECT_NE(error.find("ACCOUNT_LIB"), std::string::npos);
  unsetenv("ACCOUNT_LIB");
}

}  // namespace
