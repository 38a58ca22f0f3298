// The store's logic over either backend (sql_connection.h): migrations on
// open, adding batches in one transaction, reading commits and records.
#include <fmt/format.h>

#include <ctime>
#include <sstream>

#include "sql_connection.h"
#include "store.h"

namespace account {
namespace {

std::string joined(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

class SqlStore : public Store {
 public:
  SqlStore(std::unique_ptr<SqlConnection> db, std::string location)
      : db_(std::move(db)), location_(std::move(location)) {}

  // Reads the version and migrates, in one write transaction: two processes
  // opening a new store at once create it once.
  bool migrate(int up_to, std::string* error) {
    if (!db_->begin_write(error)) return false;
    std::optional<int> version = read_version(error);
    if (!version) return rollback();
    if (*version > kSchemaVersion) {
      *error = newer_schema_message(location_, *version);
      return rollback();
    }
    for (int v = *version + 1; v <= up_to; ++v)
      for (const std::string& sql : migration(v, db_->dialect()))
        if (!db_->exec(sql, {}, nullptr, error)) return rollback();
    if (!db_->exec("COMMIT", {}, nullptr, error)) return rollback();
    version_ = std::max(*version, up_to);
    return true;
  }

  std::optional<size_t> add(const std::vector<Batch>& batches, std::string* error) override {
    if (!db_->begin_write(error)) return std::nullopt;
    size_t added = 0;
    for (const Batch& b : batches) {
      std::optional<size_t> n = add_batch(b, error);
      if (!n) {
        rollback();
        return std::nullopt;
      }
      added += *n;
    }
    if (!db_->exec("COMMIT", {}, nullptr, error)) {
      rollback();
      return std::nullopt;
    }
    return added;
  }

  std::optional<std::vector<StoredCommit>> commits(std::string* error) override {
    std::vector<SqlRow> rows;
    if (!db_->exec("SELECT c.sha, c.commit_time, c.parents, c.subject, count(*) FROM commits c "
                   "JOIN batches b ON b.sha = c.sha JOIN records r ON r.batch_id = b.id "
                   "GROUP BY c.sha, c.commit_time, c.parents, c.subject",
                   {}, &rows, error))
      return std::nullopt;
    std::vector<StoredCommit> out;
    for (const SqlRow& r : rows) {
      StoredCommit s;
      s.commit.sha = r[0];
      s.commit.time = std::stoll(r[1]);
      std::istringstream words(r[2]);
      for (std::string p; words >> p;) s.commit.parents.push_back(p);
      s.commit.subject = r[3];
      s.records = std::stoull(r[4]);
      out.push_back(std::move(s));
    }
    return out;
  }

  std::optional<std::vector<std::string>> records_at(const std::string& sha,
                                                     std::string* error) override {
    std::vector<SqlRow> rows;
    if (!db_->exec("SELECT r.line FROM records r JOIN batches b ON r.batch_id = b.id "
                   "WHERE b.sha = ? ORDER BY b.id, r.seq",
                   {sha}, &rows, error))
      return std::nullopt;
    std::vector<std::string> out;
    for (SqlRow& r : rows) out.push_back(std::move(r[0]));
    return out;
  }

  int schema_version() const override { return version_; }

 private:
  std::optional<int> read_version(std::string* error) {
    std::optional<bool> exists = db_->table_exists("account_schema", error);
    if (!exists) return std::nullopt;
    if (!*exists) return 0;
    std::vector<SqlRow> rows;
    if (!db_->exec("SELECT version FROM account_schema", {}, &rows, error)) return std::nullopt;
    if (rows.size() != 1) {
      *error = fmt::format("store {} has a damaged schema table ({} rows)", location_, rows.size());
      return std::nullopt;
    }
    return std::stoi(rows[0][0]);
  }

  std::optional<size_t> add_batch(const Batch& b, std::string* error) {
    if (!db_->exec("INSERT INTO commits (sha, commit_time, parents, subject) VALUES (?, ?, ?, ?) "
                   "ON CONFLICT (sha) DO NOTHING",
                   {b.commit.sha, std::to_string(b.commit.time), joined(b.commit.parents, " "),
                    b.commit.subject},
                   nullptr, error))
      return std::nullopt;
    std::vector<SqlRow> id;
    if (!db_->exec("INSERT INTO batches (sha, branch, host, labels, source, added_at) "
                   "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                   {b.commit.sha, b.branch, b.host, joined(b.labels, "\n"), b.source,
                    std::to_string(int64_t(std::time(nullptr)))},
                   &id, error))
      return std::nullopt;
    size_t added = 0;
    for (size_t i = 0; i < b.lines.size(); ++i) {
      std::vector<SqlRow> inserted;
      if (!db_->exec("INSERT INTO records (hash, batch_id, seq, line) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT (hash) DO NOTHING RETURNING hash",
                     {b.hashes[i], id.at(0).at(0), std::to_string(i), b.lines[i]}, &inserted,
                     error))
        return std::nullopt;
      added += inserted.size();
    }
    // Nothing new: the batch leaves no trace (the same file added twice adds nothing).
    if (added == 0 &&
        !db_->exec("DELETE FROM batches WHERE id = ?", {id.at(0).at(0)}, nullptr, error))
      return std::nullopt;
    return added;
  }

  bool rollback() {
    std::string ignored;
    db_->exec("ROLLBACK", {}, nullptr, &ignored);
    return false;
  }

  std::unique_ptr<SqlConnection> db_;
  std::string location_;
  int version_ = 0;
};

bool is_postgres(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

}  // namespace

std::string printable_location(const std::string& location) {
  if (!is_postgres(location)) return location;
  // scheme://user:password@host/... → scheme://user@host/...
  size_t scheme = location.find("://") + 3;
  size_t at = location.find('@', scheme);
  size_t colon = location.find(':', scheme);
  if (at == std::string::npos || colon == std::string::npos || colon > at) return location;
  return location.substr(0, colon) + location.substr(at);
}

std::unique_ptr<Store> open_store(const std::string& location, std::string* error, int up_to) {
  std::unique_ptr<SqlConnection> db =
      is_postgres(location) ? open_postgres(location, error) : open_sqlite(location, error);
  if (!db) return nullptr;
  auto store = std::make_unique<SqlStore>(std::move(db), printable_location(location));
  if (!store->migrate(up_to < 0 ? kSchemaVersion : up_to, error)) return nullptr;
  return store;
}

}  // namespace account
