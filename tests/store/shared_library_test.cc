// The store's client libraries are dlopened on first use (shared_library.h):
// a missing library or function is one line naming it, never a crash.
#include "shared_library.h"

#include <gtest/gtest.h>

#include <cstring>

#include "libpq_library.h"
#include "sqlite_library.h"

namespace account {
namespace {

TEST(SharedLibrary, AMissingLibraryIsOneLineWithItsInstallHint) {
  void* f = nullptr;
  std::string why;
  EXPECT_FALSE(load_shared_library("libaccount-no-such.so.9", "Debian: apt-get install nothing",
                                   {{"f", &f}}, &why));
  EXPECT_EQ(why, "cannot load libaccount-no-such.so.9 (Debian: apt-get install nothing)");
}

TEST(SharedLibrary, AMissingFunctionNamesTheLibraryAndTheFunction) {
  void* f = nullptr;
  std::string why;
  EXPECT_FALSE(load_shared_library("libc.so.6", "glibc", {{"account_no_such_function", &f}}, &why));
  EXPECT_EQ(why, "libc.so.6 has no account_no_such_function: too old a version");
}

TEST(SharedLibrary, FillsEveryFunction) {
  decltype(&strlen) length = nullptr;
  std::string why;
  ASSERT_TRUE(load_shared_library("libc.so.6", "glibc", {{"strlen", symbol_slot(&length)}}, &why))
      << why;
  EXPECT_EQ(length("store"), 5u);
}

TEST(SharedLibrary, TheStoresClientLibrariesLoad) {
  std::string why;
  const SqliteLibrary* sqlite = sqlite_library(&why);
  ASSERT_NE(sqlite, nullptr) << why;
  EXPECT_EQ(std::string(sqlite->errstr(0)), "not an error");
  const LibpqLibrary* pq = libpq_library(&why);
  ASSERT_NE(pq, nullptr) << why;
  EXPECT_EQ(pq->status(nullptr), CONNECTION_BAD);
}

}  // namespace
}  // namespace account
