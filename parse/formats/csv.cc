#include <string_view>

#include "formats/table_formats.h"

namespace account {

namespace {

// A text cell a spreadsheet would take for a formula (=, +, -, @, tab, CR
// first) gets a leading ', as OWASP's advice on CSV injection says.
std::string csv_field(const std::string& text) {
  bool formula =
      !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
  std::string s = formula ? "'" + text : text;
  if (s.find_first_of(",\"\n\r") == std::string::npos &&
      (s.empty() || (s.front() != ' ' && s.back() != ' ')))
    return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

class CsvFormat : public TableFormat {
 public:
  std::string render(const Table& t) const override {
    std::vector<size_t> cols = machine_columns(t);
    std::string out;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (i) out += ',';
      out += csv_field(t.columns[cols[i]].key);
    }
    out += '\n';
    for (const Row& r : t.rows) {
      if (!r.machine) continue;
      for (size_t i = 0; i < cols.size(); ++i) {
        if (i) out += ',';
        out += machine_value(r.cells[cols[i]], csv_field, "");
      }
      out += '\n';
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_csv_format() {
  return std::make_unique<CsvFormat>();
}

}  // namespace account
