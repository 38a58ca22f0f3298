/// The store's schema, one migration per version, written once for both
/// backends: a statement's few words that differ between SQLite and
/// PostgreSQL are placeholders (dialect_sql). A store newer than
/// kSchemaVersion is refused; an older one is migrated on open, in the same
/// transaction that reads its version.
#pragma once

#include <string>
#include <vector>

namespace account {

constexpr int kSchemaVersion = 2;

enum class Dialect { kSqlite, kPostgres };

/// The statements that take a store from version `to - 1` to `to` (1..kSchemaVersion).
std::vector<std::string> migration(int to, Dialect dialect);

/// "store PATH has schema version N, newer than this account's M: use a newer account".
std::string newer_schema_message(const std::string& location, int version);

}  // namespace account
