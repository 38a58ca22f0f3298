#include "libpq_library.h"

#include "shared_library.h"

#ifndef ACCOUNT_LIBPQ_SONAME
#define ACCOUNT_LIBPQ_SONAME "libpq.so.5"
#endif

namespace account {
namespace {

struct Loaded {
  LibpqLibrary f{};
  std::string why;
  bool ok = load_shared_library(ACCOUNT_LIBPQ_SONAME,
                                "PostgreSQL's client library; Debian: apt-get install libpq5",
                                {{"PQconnectdb", symbol_slot(&f.connectdb)},
                                 {"PQstatus", symbol_slot(&f.status)},
                                 {"PQerrorMessage", symbol_slot(&f.error_message)},
                                 {"PQfinish", symbol_slot(&f.finish)},
                                 {"PQsetNoticeProcessor", symbol_slot(&f.set_notice_processor)},
                                 {"PQexecParams", symbol_slot(&f.exec_params)},
                                 {"PQresultStatus", symbol_slot(&f.result_status)},
                                 {"PQresultErrorField", symbol_slot(&f.result_error_field)},
                                 {"PQclear", symbol_slot(&f.clear)},
                                 {"PQntuples", symbol_slot(&f.ntuples)},
                                 {"PQnfields", symbol_slot(&f.nfields)},
                                 {"PQgetlength", symbol_slot(&f.getlength)},
                                 {"PQgetvalue", symbol_slot(&f.getvalue)}},
                                &why);
};

}  // namespace

const LibpqLibrary* libpq_library(std::string* why) {
  static const Loaded loaded;
  if (!loaded.ok) {
    *why = loaded.why;
    return nullptr;
  }
  return &loaded.f;
}

}  // namespace account
