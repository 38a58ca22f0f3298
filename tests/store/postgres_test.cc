// The PostgreSQL store (issue 35.5), against a real server this test starts:
// Debian's postgresql-15, initdb and pg_ctl as nobody in a temporary
// directory, reached on a unix socket there. Nothing is skipped: without the
// server's programs the test fails in one line saying what to install.
#include <fmt/format.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <fstream>
#include <thread>

#include "run_program.h"
#include "schema.h"
#include "sql_connection.h"
#include "store.h"
#include "synthetic_runs.h"

namespace account {
namespace {

using testing::make_repo;
using testing::ProgramResult;
using testing::run_lines;
using testing::run_program;
using testing::RunSpec;
using testing::TempDir;

constexpr const char* kBin = "/usr/lib/postgresql/15/bin";

ProgramResult account(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ACCOUNT_CLI_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv);
}

// initdb refuses root: the server's programs run as nobody.
ProgramResult as_nobody(std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"});
  return run_program(argv);
}

class Postgres : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(access((std::string(kBin) + "/initdb").c_str(), X_OK), 0)
        << kBin << "/initdb is missing: install postgresql-15 (scripts/install-deps.sh does)";
    server = new TempDir;
    struct passwd* nobody = getpwnam("nobody");
    struct group* nogroup = getgrnam("nogroup");
    ASSERT_TRUE(nobody && nogroup);
    ASSERT_EQ(chown(server->path().c_str(), nobody->pw_uid, nogroup->gr_gid), 0);
    ProgramResult r = as_nobody({std::string(kBin) + "/initdb", "-D", server->file("data"), "-U",
                                 "account", "--auth=trust", "-E", "UTF8", "--no-sync"});
    ASSERT_EQ(r.status, 0) << r.err;
    r = as_nobody(
        {std::string(kBin) + "/pg_ctl", "-D", server->file("data"), "-l", server->file("log"), "-w",
         "-o", fmt::format("-k {} -c listen_addresses= -c fsync=off", server->path()), "start"});
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    started = true;
  }
  static void TearDownTestSuite() {
    if (started)
      as_nobody(
          {std::string(kBin) + "/pg_ctl", "-D", server->file("data"), "-m", "immediate", "stop"});
    delete server;
  }
  static std::string uri(const std::string& database) {
    return fmt::format("postgresql://account@/{}?host={}", database, server->path());
  }

  void SetUp() override {
    // A database of its own for each test.
    database = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : database) c = char(std::tolower(static_cast<unsigned char>(c)));
    std::string error;
    std::unique_ptr<SqlConnection> admin = open_postgres(uri("postgres"), &error);
    ASSERT_TRUE(admin) << error;
    ASSERT_TRUE(admin->exec("CREATE DATABASE " + database, {}, nullptr, &error)) << error;
    repo = dir.file("repo");
    mkdir(repo.c_str(), 0755);
    shas = make_repo(repo, 12);
  }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir.file(name)) << text;
  }
  int64_t count(const std::string& table) {
    std::string error;
    std::unique_ptr<SqlConnection> db = open_postgres(uri(database), &error);
    EXPECT_TRUE(db) << error;
    std::vector<SqlRow> rows;
    EXPECT_TRUE(db->exec("SELECT count(*) FROM " + table, {}, &rows, &error)) << error;
    return std::stoll(rows.at(0).at(0));
  }

  static TempDir* server;
  static bool started;
  TempDir dir;
  std::string database, repo;
  std::vector<std::string> shas;
};

TempDir* Postgres::server = nullptr;
bool Postgres::started = false;

TEST_F(Postgres, StoreAndHistoryWorkAsOnSqlite) {
  // 12 commits of 3 runs; one byte more malloc from commit 7 on.
  for (size_t c = 0; c < shas.size(); ++c) {
    std::string text;
    for (int r = 0; r < 3; ++r)
      text += run_lines({.run = int(c) * 10 + r, .malloc_bytes = (1u << 20) + (c >= 6 ? 1 : 0)});
    write(fmt::format("c{}.jsonl", c), text);
    ProgramResult r = account({"store", "add", "--store", uri(database), "--repo", repo, "--commit",
                               shas[c], dir.file(fmt::format("c{}.jsonl", c))});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, fmt::format("stored 6 of 6 records at {} in {}\n", shas[c].substr(0, 12),
                                 uri(database)));
  }
  ProgramResult again =
      account({"store", "add", "--store", uri(database), "--repo", repo, dir.file("c0.jsonl")});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.out, fmt::format("stored 0 of 6 records at {} in {} (6 already stored)\n",
                                   shas[11].substr(0, 12), uri(database)));
  EXPECT_EQ(count("records"), 72);
  EXPECT_EQ(count("account_schema WHERE version = " + std::to_string(kSchemaVersion)), 1);
  ProgramResult h = account({"history", "--store", uri(database), "--repo", repo, "--metric",
                             "malloc", "--format", "json"});
  ASSERT_EQ(h.status, 0) << h.err;
  boost::json::array points = boost::json::parse(h.out).as_object()["change_points"].as_array();
  ASSERT_EQ(points.size(), 1u) << h.out;
  EXPECT_EQ(points[0].as_object()["sha"].as_string(), shas[6]);
  EXPECT_EQ(points[0].as_object()["interval"].as_string(), "exact");
  ProgramResult check = account(
      {"history", "--store", uri(database), "--repo", repo, "--check", "--fail-on", "malloc=0%"});
  EXPECT_EQ(check.status, 3) << check.err;
}

TEST_F(Postgres, TwoWritersAtOnceLoseNothing) {
  for (int w = 0; w < 2; ++w)
    for (int i = 0; i < 15; ++i)
      write(fmt::format("w{}-{}.jsonl", w, i), run_lines({.run = 100 * w + i}));
  std::string script = fmt::format(
      "for i in $(seq 0 14); do {} store add --store '{}' --repo {} {}/w$1-$i.jsonl >/dev/null "
      "|| exit 1; done",
      ACCOUNT_CLI_PATH, uri(database), repo, dir.path());
  ProgramResult first;
  std::thread other([&] { first = run_program({"sh", "-c", script, "sh", "0"}); });
  ProgramResult second = run_program({"sh", "-c", script, "sh", "1"});
  other.join();
  EXPECT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(count("records"), 60);
  EXPECT_EQ(count("batches"), 30);
}

TEST_F(Postgres, ANewerSchemaIsRefusedAndAnOlderOneMigrated) {
  std::string error;
  {
    std::unique_ptr<Store> v1 = open_store(uri(database), &error, 1);
    ASSERT_TRUE(v1) << error;
    EXPECT_EQ(v1->schema_version(), 1);
  }
  EXPECT_EQ(count("pg_indexes WHERE indexname = 'records_by_batch'"), 0);
  write("a.jsonl", run_lines({.run = 1}));
  ASSERT_EQ(account({"store", "add", "--store", uri(database), "--repo", repo, dir.file("a.jsonl")})
                .status,
            0);
  EXPECT_EQ(count("pg_indexes WHERE indexname = 'records_by_batch'"), 1);
  std::unique_ptr<SqlConnection> db = open_postgres(uri(database), &error);
  ASSERT_TRUE(db->exec("UPDATE account_schema SET version = 99", {}, nullptr, &error)) << error;
  ProgramResult r =
      account({"store", "add", "--store", uri(database), "--repo", repo, dir.file("a.jsonl")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("account: store add: store {} has schema version 99, newer than "
                               "this account's {}: use a newer account\n",
                               uri(database), kSchemaVersion));
}

TEST_F(Postgres, AnUnreachableServerIsOneLine) {
  write("a.jsonl", run_lines({.run = 1}));
  std::string nowhere = fmt::format("postgresql://account@/{}?host={}", database, dir.path());
  ProgramResult r =
      account({"store", "add", "--store", nowhere, "--repo", repo, dir.file("a.jsonl")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("account: store add: cannot reach PostgreSQL store {}: connection "
                               "to server on socket \"{}/.s.PGSQL.5432\" failed: No such file or "
                               "directory\n",
                               nowhere, dir.path()));
  // A password never reaches a message.
  r = account({"store", "add", "--store",
               fmt::format("postgresql://account:secret@/{}?host={}", database, dir.path()),
               "--repo", repo, dir.file("a.jsonl")});
  EXPECT_EQ(r.err.find("secret"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace account
