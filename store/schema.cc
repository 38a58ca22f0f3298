#include "schema.h"

#include <fmt/format.h>

namespace account {
namespace {

// {id}: the batch key that numbers itself; {big}: a 64-bit integer.
struct Step {
  int version;
  const char* sql;
};

constexpr Step kSteps[] = {
    {1, "CREATE TABLE account_schema (version INTEGER NOT NULL)"},
    {1,
     "CREATE TABLE commits (sha TEXT PRIMARY KEY, commit_time {big} NOT NULL, "
     "parents TEXT NOT NULL, subject TEXT NOT NULL)"},
    {1,
     "CREATE TABLE batches (id {id}, sha TEXT NOT NULL REFERENCES commits(sha), "
     "branch TEXT NOT NULL, host TEXT NOT NULL, labels TEXT NOT NULL, source TEXT NOT NULL, "
     "added_at {big} NOT NULL)"},
    {1,
     "CREATE TABLE records (hash TEXT PRIMARY KEY, batch_id {big} NOT NULL REFERENCES "
     "batches(id), seq INTEGER NOT NULL, line TEXT NOT NULL)"},
    {1, "INSERT INTO account_schema (version) VALUES (0)"},
    // 2: history reads a commit's records and a commit's batches by key.
    {2, "CREATE INDEX records_by_batch ON records (batch_id, seq)"},
    {2, "CREATE INDEX batches_by_commit ON batches (sha)"},
};

std::string dialect_sql(const char* sql, Dialect d) {
  std::string s = sql;
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, from.size(), to);
  };
  replace("{id}", d == Dialect::kSqlite ? "INTEGER PRIMARY KEY" : "BIGSERIAL PRIMARY KEY");
  replace("{big}", d == Dialect::kSqlite ? "INTEGER" : "BIGINT");
  return s;
}

}  // namespace

std::vector<std::string> migration(int to, Dialect dialect) {
  std::vector<std::string> out;
  for (const Step& s : kSteps)
    if (s.version == to) out.push_back(dialect_sql(s.sql, dialect));
  out.push_back(fmt::format("UPDATE account_schema SET version = {}", to));
  return out;
}

std::string newer_schema_message(const std::string& location, int version) {
  return fmt::format(
      "store {} has schema version {}, newer than this account's {}: use a newer account", location,
      version, kSchemaVersion);
}

}  // namespace account
