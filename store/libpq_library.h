/// libpq, loaded by its soname the first time a postgresql:// store is opened
/// (shared_library.h).
/// Linked, it and what it pulls in (OpenSSL, GnuTLS, Kerberos, LDAP: twenty
/// libraries, 8,000 symbol relocations) cost every account process, and the
/// sampler and guard it starts, about 10 M instructions of dynamic linking
/// before main, store or no store.
#pragma once

#include <libpq-fe.h>

#include <string>

namespace account {

struct LibpqLibrary {
  decltype(&PQconnectdb) connectdb;
  decltype(&PQstatus) status;
  decltype(&PQerrorMessage) error_message;
  decltype(&PQfinish) finish;
  decltype(&PQsetNoticeProcessor) set_notice_processor;
  decltype(&PQexecParams) exec_params;
  decltype(&PQresultStatus) result_status;
  decltype(&PQresultErrorField) result_error_field;
  decltype(&PQclear) clear;
  decltype(&PQntuples) ntuples;
  decltype(&PQnfields) nfields;
  decltype(&PQgetlength) getlength;
  decltype(&PQgetvalue) getvalue;
};

/// The library's functions, loaded once; nullptr with one line in *why when
/// libpq is not installed or lacks one of them.
const LibpqLibrary* libpq_library(std::string* why);

}  // namespace account
