/// The results store: every record kept with the commit it was measured at.
/// One interface, two backends with the same schema (schema.h): an SQLite
/// file (the default) and a PostgreSQL database (`postgresql://...`). Every
/// change is one transaction, so two writers at once lose nothing and a
/// failure stores nothing half.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "git.h"

namespace account {

/// One file's records to store, all at one commit.
struct Batch {
  CommitInfo commit;
  std::string branch;               ///< "" when not given
  std::string host;                 ///< the machine the records name (else the one storing them)
  std::vector<std::string> labels;  ///< "KEY=VALUE", sorted
  std::string source;               ///< the file's name, for people
  std::vector<std::string> lines;   ///< the records, one JSON object each, in file order
  std::vector<std::string> hashes;  ///< record_hash of each line
};

/// A stored commit that has records.
struct StoredCommit {
  CommitInfo commit;
  size_t records = 0;
};

class Store {
 public:
  virtual ~Store() = default;
  /// Stores every batch in one transaction: a record whose hash is stored
  /// already is left out, and a batch none of whose records is new leaves no
  /// trace. Returns the records added; nullopt with one line in *error, and
  /// nothing stored, on failure.
  virtual std::optional<size_t> add(const std::vector<Batch>& batches, std::string* error) = 0;
  /// Every commit with records, in no particular order.
  virtual std::optional<std::vector<StoredCommit>> commits(std::string* error) = 0;
  /// The records stored at `sha`, in the order they were added.
  virtual std::optional<std::vector<std::string>> records_at(const std::string& sha,
                                                             std::string* error) = 0;
  /// The schema version the store is at.
  virtual int schema_version() const = 0;
};

/// Opens (creating and migrating up to `up_to` where needed) the store at
/// `location`: a `postgresql://` or `postgres://` URI, else an SQLite file
/// path. nullopt with one line in *error: a store of a newer schema, a
/// locked database, an unreachable server.
std::unique_ptr<Store> open_store(const std::string& location, std::string* error, int up_to = -1);

/// The location a command uses: `option` when given, else $ACCOUNT_STORE,
/// else `.account/results.sqlite` at the top of the repository `repo`.
std::optional<std::string> store_location(const std::string& option, const std::string& repo,
                                          std::string* error);

/// Where a location names a server, the location without its password (for messages).
std::string printable_location(const std::string& location);

}  // namespace account
