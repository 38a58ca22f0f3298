// account store add on SQLite (issue 35.1): what is kept, idempotence, bad
// input stored nowhere, schema versions, two writers at once, a locked store.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "run_program.h"
#include "schema.h"
#include "sql_connection.h"
#include "store.h"
#include "synthetic_runs.h"

namespace account {
namespace {

using testing::git;
using testing::make_repo;
using testing::ProgramResult;
using testing::run_lines;
using testing::run_program;
using testing::RunSpec;
using testing::TempDir;

void write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

ProgramResult account(const std::vector<std::string>& args,
                      const testing::ProgramOptions& options = {}) {
  std::vector<std::string> argv = {ACCOUNT_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv, options);
}

int64_t count(const std::string& store, const std::string& table) {
  std::string error;
  std::unique_ptr<SqlConnection> db = open_sqlite(store, &error);
  EXPECT_TRUE(db) << error;
  std::vector<SqlRow> rows;
  EXPECT_TRUE(db->exec("SELECT count(*) FROM " + table, {}, &rows, &error)) << error;
  return std::stoll(rows.at(0).at(0));
}

class StoreAdd : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = dir.file("repo");
    mkdir(repo.c_str(), 0755);
    shas = make_repo(repo, 3);
    store = dir.file("results.sqlite");
    write(dir.file("a.jsonl"), run_lines({.run = 1}) + run_lines({.run = 2}));
  }
  TempDir dir;
  std::string repo, store;
  std::vector<std::string> shas;
};

TEST_F(StoreAdd, KeepsTheCommitItsParentsTimeSubjectLabelsAndEveryRecord) {
  ProgramResult r =
      account({"store", "add", "--store", store, "--repo", repo, "--commit", "HEAD~1", "--branch",
               "main", "--label", "os=debian", "--label", "cc=gcc", dir.file("a.jsonl")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            fmt::format("stored 4 of 4 records at {} in {}\n", shas[1].substr(0, 12), store));
  std::string error;
  std::unique_ptr<Store> s = open_store(store, &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->schema_version(), kSchemaVersion);
  auto commits = s->commits(&error);
  ASSERT_TRUE(commits) << error;
  ASSERT_EQ(commits->size(), 1u);
  EXPECT_EQ((*commits)[0].commit.sha, shas[1]);
  EXPECT_EQ((*commits)[0].commit.time, 1700000000 + 2 * 60);
  EXPECT_EQ((*commits)[0].commit.parents, std::vector<std::string>{shas[0]});
  EXPECT_EQ((*commits)[0].commit.subject, "commit 2");
  EXPECT_EQ((*commits)[0].records, 4u);
  auto lines = s->records_at(shas[1], &error);
  ASSERT_TRUE(lines) << error;
  std::string all;
  for (const std::string& l : *lines) all += l + "\n";
  EXPECT_EQ(all, run_lines({.run = 1}) + run_lines({.run = 2}));
  std::unique_ptr<SqlConnection> db = open_sqlite(store, &error);
  std::vector<SqlRow> rows;
  ASSERT_TRUE(db->exec("SELECT branch, host, labels, source FROM batches", {}, &rows, &error));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], (SqlRow{"main", "ci-1", "cc=gcc\nos=debian", dir.file("a.jsonl")}));
}

TEST_F(StoreAdd, TheSameFileTwiceAddsNothing) {
  ASSERT_EQ(account({"store", "add", "--store", store, "--repo", repo, dir.file("a.jsonl")}).status,
            0);
  ProgramResult r =
      account({"store", "add", "--store", store, "--repo", repo, dir.file("a.jsonl")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, fmt::format("stored 0 of 4 records at {} in {} (4 already stored)\n",
                               shas[2].substr(0, 12), store));
  EXPECT_EQ(count(store, "records"), 4);
  EXPECT_EQ(count(store, "batches"), 1);  // the second add left no trace
}

TEST_F(StoreAdd, AnUnknownRevisionIsOneLineAndNoStore) {
  ProgramResult r = account(
      {"store", "add", "--store", store, "--repo", repo, "--commit", "nope", dir.file("a.jsonl")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("account: store add: unknown revision 'nope' in {}\n", repo));
  EXPECT_FALSE(exists(store));
}

TEST_F(StoreAdd, ADirectoryThatIsNotARepositoryIsOneLineAndNoStore) {
  ProgramResult r =
      account({"store", "add", "--store", store, "--repo", dir.path(), dir.file("a.jsonl")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("account: store add: {} is not a git repository\n", dir.path()));
  EXPECT_FALSE(exists(store));
  // Without --store the default location needs a repository too.
  testing::ProgramOptions in_dir;
  in_dir.cwd = dir.path();
  r = account({"store", "add", dir.file("a.jsonl")}, in_dir);
  EXPECT_EQ(r.err, fmt::format("account: store add: {} is not a git repository\n", dir.path()));
  EXPECT_EQ(r.status, 1);
}

TEST_F(StoreAdd, ABadLineInAnyFileStoresNothing) {
  ASSERT_EQ(account({"store", "add", "--store", store, "--repo", repo, dir.file("a.jsonl")}).status,
            0);
  write(dir.file("b.jsonl"), run_lines({.run = 3}) + "{\"schema\":1,\"kind\":\"tree\"\n");
  write(dir.file("c.jsonl"), run_lines({.run = 4}));
  ProgramResult r = account(
      {"store", "add", "--store", store, "--repo", repo, dir.file("c.jsonl"), dir.file("b.jsonl")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            fmt::format("account: store add: {}:3: not JSON (incomplete JSON): nothing stored\n",
                        dir.file("b.jsonl")));
  EXPECT_EQ(count(store, "records"), 4);  // c.jsonl's records were not stored either
  EXPECT_EQ(count(store, "batches"), 1);
}

TEST_F(StoreAdd, ABadLabelIsOneLine) {
  ProgramResult r = account(
      {"store", "add", "--store", store, "--repo", repo, "--label", "=x", dir.file("a.jsonl")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "account: store add: --label '=x' is not KEY=VALUE\n");
  EXPECT_FALSE(exists(store));
}

TEST_F(StoreAdd, AStoreOfANewerSchemaIsRefusedInOneLine) {
  ASSERT_EQ(account({"store", "add", "--store", store, "--repo", repo, dir.file("a.jsonl")}).status,
            0);
  std::string error;
  {
    std::unique_ptr<SqlConnection> db = open_sqlite(store, &error);
    ASSERT_TRUE(db->exec("UPDATE account_schema SET version = 99", {}, nullptr, &error)) << error;
  }
  write(dir.file("c.jsonl"), run_lines({.run = 4}));
  ProgramResult r =
      account({"store", "add", "--store", store, "--repo", repo, dir.file("c.jsonl")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("account: store add: store {} has schema version 99, newer than "
                               "this account's {}: use a newer account\n",
                               store, kSchemaVersion));
  EXPECT_EQ(count(store, "records"), 4);
}

TEST_F(StoreAdd, AnOlderSchemaIsMigratedKeepingItsRecords) {
  std::string error;
  {
    std::unique_ptr<Store> v1 = open_store(store, &error, 1);
    ASSERT_TRUE(v1) << error;
    EXPECT_EQ(v1->schema_version(), 1);
  }
  ASSERT_EQ(count(store, "sqlite_master WHERE type = 'index' AND name = 'records_by_batch'"), 0);
  ASSERT_EQ(account({"store", "add", "--store", store, "--repo", repo, dir.file("a.jsonl")}).status,
            0);
  std::unique_ptr<Store> s = open_store(store, &error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->schema_version(), 2);
  EXPECT_EQ(count(store, "sqlite_master WHERE type = 'index' AND name = 'records_by_batch'"), 1);
  EXPECT_EQ(count(store, "records"), 4);
}

TEST_F(StoreAdd, TwoWritersAtOnceLoseNothing) {
  // Two processes, each adding 25 files of 2 records one after another, at once.
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < 25; ++i)
      write(dir.file(fmt::format("w{}-{}.jsonl", w, i)), run_lines({.run = 100 * w + i}));
  std::string script = fmt::format(
      "for i in $(seq 0 24); do {} store add --store {} --repo {} {}/w$1-$i.jsonl >/dev/null || "
      "exit 1; done",
      ACCOUNT_CLI_PATH, store, repo, dir.path());
  ProgramResult first;
  std::thread other([&] { first = run_program({"sh", "-c", script, "sh", "0"}); });
  ProgramResult second = run_program({"sh", "-c", script, "sh", "1"});
  other.join();
  EXPECT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(count(store, "records"), 100);
  EXPECT_EQ(count(store, "batches"), 50);
}

TEST_F(StoreAdd, ALockedStoreIsOneLineAfterWaiting) {
  ASSERT_EQ(account({"store", "add", "--store", store, "--repo", repo, dir.file("a.jsonl")}).status,
            0);
  std::string error;
  std::unique_ptr<SqlConnection> holder = open_sqlite(store, &error);
  ASSERT_TRUE(holder->begin_write(&error)) << error;
  write(dir.file("c.jsonl"), run_lines({.run = 4}));
  auto start = std::chrono::steady_clock::now();
  ProgramResult r =
      account({"store", "add", "--store", store, "--repo", repo, dir.file("c.jsonl")});
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("account: store add: store {} is locked by another writer (waited "
                               "{} s): try again when it is done\n",
                               store, kWriteWaitSeconds));
  EXPECT_GE(waited, kWriteWaitSeconds);  // it waited for the writer before giving up
  ASSERT_TRUE(holder->exec("ROLLBACK", {}, nullptr, &error));
  EXPECT_EQ(count(store, "records"), 4);
}

TEST_F(StoreAdd, TheStoreIsAccountStoreElseInTheRepositorysTop) {
  std::string elsewhere = dir.file("env.sqlite");
  testing::ProgramOptions o;
  o.env["ACCOUNT_STORE"] = elsewhere;
  ProgramResult r = account({"store", "add", "--repo", repo, dir.file("a.jsonl")}, o);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count(elsewhere, "records"), 4);
  o.env["ACCOUNT_STORE"] = std::nullopt;
  o.cwd = repo;
  r = account({"store", "add", dir.file("a.jsonl")}, o);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(count(repo + "/.account/results.sqlite", "records"), 4);
}

}  // namespace
}  // namespace account

namespace account {
namespace {

TEST_F(StoreAdd, RunStoresOnlyItsOwnRecordsAtTheCommit) {
  // -o already holds other records: only what this run appends is stored.
  std::string out = dir.file("a.jsonl");
  ProgramResult r = account({"run", "-q", "--store", store, "--repo", repo, "--commit", "HEAD~2",
                             "--test", "t", "--op", "true", "-o", out, "--", "/bin/true"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::string error;
  std::unique_ptr<Store> s = open_store(store, &error);
  auto lines = s->records_at(shas[0], &error);
  ASSERT_TRUE(lines) << error;
  ASSERT_EQ(lines->size(), 2u);  // /bin/true's record and the run's tree record
  EXPECT_NE((*lines)[0].find("\"op\":\"true\""), std::string::npos) << (*lines)[0];
  EXPECT_NE((*lines)[1].find("\"op\":\"true\""), std::string::npos) << (*lines)[1];
  EXPECT_EQ(count(store, "records"), 2);
  // An unknown revision stops the run before the command.
  r = account({"run", "-q", "--store", store, "--repo", repo, "--commit", "nope", "--", "touch",
               dir.file("ran")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("account: run: unknown revision 'nope' in {}\n", repo));
  EXPECT_FALSE(exists(dir.file("ran")));
}

}  // namespace
}  // namespace account
