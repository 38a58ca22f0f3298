#include "records.h"

#include <fstream>

namespace account::testing {

RecordFile read_records(const std::string& path) {
  RecordFile f;
  std::ifstream in(path);
  std::string line, reason;
  for (int n = 1; std::getline(in, line); ++n) {
    auto rec = parse_record(line, &reason);
    if (!rec) {
      f.bad_lines.push_back(std::to_string(n) + ": " + reason);
      continue;
    }
    if (auto* p = std::get_if<ProcessRecord>(&*rec))
      f.processes.push_back(*p);
    else
      f.trees.push_back(std::get<TreeRecord>(*rec));
  }
  return f;
}

std::vector<ProcessRecord> records_of(const RecordFile& f, const std::string& name) {
  std::vector<ProcessRecord> out;
  for (const auto& p : f.processes) {
    if (p.argv.empty()) continue;
    const std::string& a0 = p.argv[0];
    if (a0.size() >= name.size() && a0.compare(a0.size() - name.size(), name.size(), name) == 0)
      out.push_back(p);
  }
  return out;
}

}  // namespace account::testing
