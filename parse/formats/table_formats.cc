#include "formats/table_formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "text_escape.h"

namespace account {

namespace {

// Full precision, base form: what CSV and JSON carry.
std::string raw_number(double v) {
  return fmt::format("{}", v);
}

}  // namespace

// CSV and JSON: the columns in order, those marked machine_last moved to the end.
std::vector<size_t> machine_columns(const Table& t) {
  std::vector<size_t> out(t.columns.size());
  for (size_t c = 0; c < out.size(); ++c) out[c] = c;
  std::stable_partition(out.begin(), out.end(),
                        [&](size_t c) { return !t.columns[c].machine_last; });
  return out;
}

std::string rstrip(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The footnotes after a blank line, as the text table and Markdown end.
std::string notes_text(const Table& t) {
  std::string out;
  for (const std::string& n : t.notes) out += escape_control(n) + '\n';
  return out.empty() ? out : '\n' + out;
}

// A cell for the machine formats (CSV, JSON): full precision, base units;
// `quote` renders text, `missing` stands for an empty cell.
std::string machine_value(const Cell& cell, std::string (*quote)(const std::string&),
                          const char* missing) {
  switch (cell.kind) {
    case Cell::Kind::kText:
      return quote(cell.text.str());
    case Cell::Kind::kNumber:
    case Cell::Kind::kPercent:
      // JSON has no infinity or NaN: such a figure is not known.
      return std::isfinite(cell.number) ? raw_number(cell.number) : missing;
    case Cell::Kind::kInteger:
      return fmt::format("{}", cell.integer);
    default:
      return missing;
  }
}

}  // namespace account
