// account export as a shell sees it: options, usage errors, exit statuses,
// standard input and -o.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>

#include "golden.h"

namespace account {
namespace {

using testing::Shell;

Shell account(const std::string& args) {
  return testing::run_account(ACCOUNT_CLI, args);
}

TEST(ExportCli, UnknownOrMissingFormatIsOneLineListingTheFormats) {
  Shell unknown = account("export --format svg export/records.jsonl");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_EQ(unknown.err,
            "account: export: unknown format 'svg': use chrome-trace, pprof, folded, "
            "folded-leaks, folded-temporary, openmetrics\n");
  EXPECT_EQ(unknown.out, "");
  Shell none = account("export export/records.jsonl");
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err,
            "account: export: --format is required: chrome-trace, pprof, folded, folded-leaks, "
            "folded-temporary, openmetrics\n");
}

TEST(ExportCli, BadLinesAndMissingFilesAsReport) {
  Shell bad = account("export --format openmetrics bad.jsonl");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err.substr(0, bad.err.find('\n')), "bad.jsonl:2: not JSON (syntax error)");
  EXPECT_EQ(bad.err, account("report bad.jsonl").err);
  EXPECT_TRUE(bad.out.ends_with("# EOF\n"));
  EXPECT_EQ(account("export --format folded --strict bad.jsonl").status, 1);
  EXPECT_EQ(account("export --format folded all-bad.jsonl").status, 1);
  Shell missing = account("export --format chrome-trace nonexistent.jsonl");
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "account: nonexistent.jsonl: cannot open: No such file or directory\n");
  EXPECT_EQ(missing.out, "");
}

TEST(ExportCli, StandardInputAndOutputFile) {
  std::string from_file = account("export --format folded export/records.jsonl").out;
  EXPECT_FALSE(from_file.empty());
  EXPECT_EQ(account("export --format folded - < export/records.jsonl").out, from_file);
  EXPECT_EQ(account("export -f folded < export/records.jsonl").out, from_file);
  testing::TempFile out("");
  Shell written = account("export --format pprof -o '" + out.path() + "' export/records.jsonl");
  EXPECT_EQ(written.status, 0) << written.err;
  EXPECT_EQ(written.out, "");
  std::string bytes = testing::read_file(out.path());
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(bytes.substr(0, 2), "\x1f\x8b");  // gzip
}

}  // namespace
}  // namespace account
