/// libsqlite3, loaded by its soname the first time a store is opened
/// (shared_library.h): linked, its 1,600 symbol relocations were most of what
/// the dynamic linker did for every account process, store or no store.
#pragma once

#include <sqlite3.h>

#include <string>

namespace account {

struct SqliteLibrary {
  decltype(&sqlite3_open_v2) open_v2;
  decltype(&sqlite3_close_v2) close_v2;
  decltype(&sqlite3_errmsg) errmsg;
  decltype(&sqlite3_errstr) errstr;
  decltype(&sqlite3_extended_errcode) extended_errcode;
  decltype(&sqlite3_extended_result_codes) extended_result_codes;
  decltype(&sqlite3_busy_timeout) busy_timeout;
  decltype(&sqlite3_prepare_v2) prepare_v2;
  decltype(&sqlite3_bind_text) bind_text;
  decltype(&sqlite3_step) step;
  decltype(&sqlite3_column_count) column_count;
  decltype(&sqlite3_column_text) column_text;
  decltype(&sqlite3_column_bytes) column_bytes;
  decltype(&sqlite3_finalize) finalize;
};

/// The library's functions, loaded once; nullptr with one line in *why.
const SqliteLibrary* sqlite_library(std::string* why);

}  // namespace account
