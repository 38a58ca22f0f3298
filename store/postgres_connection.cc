// The PostgreSQL backend (libpq): the same statements as SQLite's with `?`
// numbered into `$n`. Writers take one advisory lock per transaction, so they
// follow each other as SQLite's do, each waiting at most kWriteWaitSeconds.
#include <fmt/format.h>

#include "libpq_library.h"
#include "sql_connection.h"
#include "store.h"

namespace account {
namespace {

// The advisory lock every writer of a store takes ("acco").
constexpr const char* kWriterLock = "1633903471";

std::string first_line(const char* text) {
  std::string s = text ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

std::string numbered(const std::string& sql) {
  std::string out;
  int n = 0;
  for (char c : sql) {
    if (c == '?')
      out += "$" + std::to_string(++n);
    else
      out += c;
  }
  return out;
}

class PostgresConnection : public SqlConnection {
 public:
  PostgresConnection(const LibpqLibrary& pq, PGconn* conn, std::string location)
      : pq_(pq), conn_(conn), location_(std::move(location)) {}
  ~PostgresConnection() override { pq_.finish(conn_); }

  Dialect dialect() const override { return Dialect::kPostgres; }

  bool exec(const std::string& sql, const std::vector<std::string>& params,
            std::vector<SqlRow>* rows, std::string* error) override {
    std::vector<const char*> values;
    std::vector<int> lengths;
    for (const std::string& p : params) {
      values.push_back(p.c_str());
      lengths.push_back(int(p.size()));
    }
    PGresult* res = pq_.exec_params(conn_, numbered(sql).c_str(), int(params.size()), nullptr,
                                    values.data(), lengths.data(), nullptr, 0);
    ExecStatusType status = pq_.result_status(res);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const char* state = pq_.result_error_field(res, PG_DIAG_SQLSTATE);
      if (state && std::string(state) == "55P03")  // lock_not_available
        *error = fmt::format(
            "store {} is locked by another writer (waited {} s): try again when it is done",
            location_, kWriteWaitSeconds);
      else if (pq_.status(conn_) != CONNECTION_OK)
        *error = fmt::format("lost PostgreSQL store {}: {}", location_,
                             first_line(pq_.error_message(conn_)));
      else
        *error = fmt::format("store {}: {}", location_,
                             first_line(pq_.result_error_field(res, PG_DIAG_MESSAGE_PRIMARY)));
      pq_.clear(res);
      return false;
    }
    if (rows)
      for (int r = 0; r < pq_.ntuples(res); ++r) {
        SqlRow row;
        for (int c = 0; c < pq_.nfields(res); ++c)
          row.emplace_back(pq_.getvalue(res, r, c), size_t(pq_.getlength(res, r, c)));
        rows->push_back(std::move(row));
      }
    pq_.clear(res);
    return true;
  }

  bool begin_write(std::string* error) override {
    std::string wait = fmt::format("SET LOCAL lock_timeout = '{}s'", kWriteWaitSeconds);
    if (!exec("BEGIN", {}, nullptr, error)) return false;
    if (exec(wait, {}, nullptr, error) &&
        exec(fmt::format("SELECT pg_advisory_xact_lock({})", kWriterLock), {}, nullptr, error))
      return true;
    std::string ignored;
    exec("ROLLBACK", {}, nullptr, &ignored);
    return false;
  }

  std::optional<bool> table_exists(const std::string& table, std::string* error) override {
    std::vector<SqlRow> rows;
    if (!exec("SELECT count(*) FROM information_schema.tables "
              "WHERE table_schema = current_schema() AND table_name = ?",
              {table}, &rows, error))
      return std::nullopt;
    return rows.at(0).at(0) != "0";
  }

 private:
  const LibpqLibrary& pq_;
  PGconn* conn_;
  std::string location_;
};

void no_notices(void*, const char*) {}

}  // namespace

std::unique_ptr<SqlConnection> open_postgres(const std::string& uri, std::string* error) {
  std::string why;
  const LibpqLibrary* pq = libpq_library(&why);
  if (!pq) {
    *error = fmt::format("cannot open PostgreSQL store {}: {}", printable_location(uri), why);
    return nullptr;
  }
  PGconn* conn = pq->connectdb(uri.c_str());
  if (!conn || pq->status(conn) != CONNECTION_OK) {
    *error = fmt::format("cannot reach PostgreSQL store {}: {}", printable_location(uri),
                         conn ? first_line(pq->error_message(conn)) : "out of memory");
    pq->finish(conn);
    return nullptr;
  }
  pq->set_notice_processor(conn, no_notices, nullptr);
  return std::make_unique<PostgresConnection>(*pq, conn, printable_location(uri));
}

}  // namespace account
