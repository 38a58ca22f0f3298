#include <boost/json.hpp>

#include "formats/table_formats.h"

namespace account {

namespace {

std::string json_string(const std::string& s) {
  return boost::json::serialize(boost::json::string_view(s));
}

class JsonFormat : public TableFormat {
 public:
  std::string render(const Table& t) const override {
    std::vector<const Row*> rows;
    for (const Row& r : t.rows)
      if (r.machine) rows.push_back(&r);
    if (rows.empty()) return "[]\n";
    std::vector<size_t> cols = machine_columns(t);
    std::string out = "[\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      out += "  {";
      for (size_t k = 0; k < cols.size(); ++k) {
        if (k) out += ", ";
        out += json_string(t.columns[cols[k]].key) + ": ";
        out += machine_value(rows[i]->cells[cols[k]], json_string, "null");
      }
      out += i + 1 < rows.size() ? "},\n" : "}\n";
    }
    return out + "]\n";
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_json_format() {
  return std::make_unique<JsonFormat>();
}

}  // namespace account
