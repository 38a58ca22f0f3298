/// What the store's logic (sql_store.cc) needs of a database: statements
/// with text parameters (`?` placeholders), rows of text back, and a write
/// transaction that waits a bounded time for another writer. One class per
/// backend; the schema and the statements are the same for both.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "schema.h"

namespace account {

using SqlRow = std::vector<std::string>;

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual Dialect dialect() const = 0;
  /// Runs one statement; its rows (NULL as "") go to *rows when given.
  /// false with one line in *error.
  virtual bool exec(const std::string& sql, const std::vector<std::string>& params,
                    std::vector<SqlRow>* rows, std::string* error) = 0;
  /// Begins a transaction that writes, waiting at most kWriteWaitSeconds for
  /// another writer; its failure says the store is locked.
  virtual bool begin_write(std::string* error) = 0;
  /// Whether the table exists.
  virtual std::optional<bool> table_exists(const std::string& table, std::string* error) = 0;
};

/// How long a writer waits for another before it gives up with one line.
constexpr int kWriteWaitSeconds = 5;

/// nullptr with one line in *error.
std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, std::string* error);
std::unique_ptr<SqlConnection> open_postgres(const std::string& uri, std::string* error);

}  // namespace account
