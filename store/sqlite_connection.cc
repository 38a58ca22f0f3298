// The SQLite backend: one file, WAL journal (readers do not block the
// writer), a busy timeout so two writers at once wait for each other.
#include <fmt/format.h>

#include "sql_connection.h"
#include "sqlite_library.h"

namespace account {
namespace {

class SqliteConnection : public SqlConnection {
 public:
  SqliteConnection(const SqliteLibrary& sq, sqlite3* db, std::string path)
      : sq_(sq), db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override { sq_.close_v2(db_); }

  Dialect dialect() const override { return Dialect::kSqlite; }

  bool exec(const std::string& sql, const std::vector<std::string>& params,
            std::vector<SqlRow>* rows, std::string* error) override {
    sqlite3_stmt* stmt = nullptr;
    if (sq_.prepare_v2(db_, sql.c_str(), int(sql.size()), &stmt, nullptr) != SQLITE_OK)
      return fail(sq_.extended_errcode(db_), error);
    for (size_t i = 0; i < params.size(); ++i)
      sq_.bind_text(stmt, int(i + 1), params[i].data(), int(params[i].size()), SQLITE_TRANSIENT);
    int rc;
    while ((rc = sq_.step(stmt)) == SQLITE_ROW) {
      if (!rows) continue;
      SqlRow row;
      for (int c = 0; c < sq_.column_count(stmt); ++c) {
        const unsigned char* text = sq_.column_text(stmt, c);
        row.emplace_back(text ? reinterpret_cast<const char*>(text) : "",
                         size_t(sq_.column_bytes(stmt, c)));
      }
      rows->push_back(std::move(row));
    }
    sq_.finalize(stmt);
    if (rc != SQLITE_DONE) return fail(rc, error);
    return true;
  }

  bool begin_write(std::string* error) override {
    return exec("BEGIN IMMEDIATE", {}, nullptr, error);
  }

  std::optional<bool> table_exists(const std::string& table, std::string* error) override {
    std::vector<SqlRow> rows;
    if (!exec("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", {table},
              &rows, error))
      return std::nullopt;
    return rows.at(0).at(0) != "0";
  }

 private:
  bool fail(int rc, std::string* error) {
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
      *error = fmt::format(
          "store {} is locked by another writer (waited {} s): try again when it is done", path_,
          kWriteWaitSeconds);
    else if ((rc & 0xff) == SQLITE_NOTADB)
      *error = fmt::format("store {} is not an SQLite database", path_);
    else
      *error = fmt::format("store {}: {}", path_, sq_.errmsg(db_));
    return false;
  }

  const SqliteLibrary& sq_;
  sqlite3* db_;
  std::string path_;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, std::string* error) {
  std::string why;
  const SqliteLibrary* sq = sqlite_library(&why);
  if (!sq) {
    *error = fmt::format("cannot open store {}: {}", path, why);
    return nullptr;
  }
  sqlite3* db = nullptr;
  int rc = sq->open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    *error = fmt::format("cannot open store {}: {}", path, db ? sq->errmsg(db) : sq->errstr(rc));
    sq->close_v2(db);
    return nullptr;
  }
  sq->busy_timeout(db, kWriteWaitSeconds * 1000);
  sq->extended_result_codes(db, 1);
  auto connection = std::make_unique<SqliteConnection>(*sq, db, path);
  // WAL: readers (history) never wait for a writer, and a commit is one append.
  if (!connection->exec("PRAGMA journal_mode = WAL", {}, nullptr, error) ||
      !connection->exec("PRAGMA foreign_keys = ON", {}, nullptr, error))
    return nullptr;
  return connection;
}

}  // namespace account
