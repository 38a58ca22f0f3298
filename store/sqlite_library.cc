#include "sqlite_library.h"

#include "shared_library.h"

#ifndef ACCOUNT_SQLITE_SONAME
#define ACCOUNT_SQLITE_SONAME "libsqlite3.so.0"
#endif

namespace account {
namespace {

struct Loaded {
  SqliteLibrary f{};
  std::string why;
  bool ok =
      load_shared_library(ACCOUNT_SQLITE_SONAME, "SQLite; Debian: apt-get install libsqlite3-0",
                          {{"sqlite3_open_v2", symbol_slot(&f.open_v2)},
                           {"sqlite3_close_v2", symbol_slot(&f.close_v2)},
                           {"sqlite3_errmsg", symbol_slot(&f.errmsg)},
                           {"sqlite3_errstr", symbol_slot(&f.errstr)},
                           {"sqlite3_extended_errcode", symbol_slot(&f.extended_errcode)},
                           {"sqlite3_extended_result_codes", symbol_slot(&f.extended_result_codes)},
                           {"sqlite3_busy_timeout", symbol_slot(&f.busy_timeout)},
                           {"sqlite3_prepare_v2", symbol_slot(&f.prepare_v2)},
                           {"sqlite3_bind_text", symbol_slot(&f.bind_text)},
                           {"sqlite3_step", symbol_slot(&f.step)},
                           {"sqlite3_column_count", symbol_slot(&f.column_count)},
                           {"sqlite3_column_text", symbol_slot(&f.column_text)},
                           {"sqlite3_column_bytes", symbol_slot(&f.column_bytes)},
                           {"sqlite3_finalize", symbol_slot(&f.finalize)}},
                          &why);
};

}  // namespace

const SqliteLibrary* sqlite_library(std::string* why) {
  static const Loaded loaded;
  if (!loaded.ok) {
    *why = loaded.why;
    return nullptr;
  }
  return &loaded.f;
}

}  // namespace account
