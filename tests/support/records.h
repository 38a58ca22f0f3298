/// Reading a record file back in tests.
#pragma once

#include <string>
#include <vector>

#include "record.h"

namespace account::testing {

struct RecordFile {
  std::vector<ProcessRecord> processes;
  std::vector<TreeRecord> trees;
  std::vector<std::string> bad_lines;  // "LINE: reason"
};

/// Every line of `path`; a test fails on bad lines unless it inspects them.
RecordFile read_records(const std::string& path);

/// The process records whose argv[0] ends with `name`.
std::vector<ProcessRecord> records_of(const RecordFile& f, const std::string& name);

}  // namespace account::testing
