/// A table independent of its output format: columns, rows of cells, header
/// spans. Reports build one; a Renderer (render.h) turns it into bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace account {

enum class Align { kLeft, kRight, kCenter };

/// One column. In the text table a column is `sep` spaces then a field of at
/// least `width` characters (wider when a cell or the heading needs it).
struct Column {
  std::string key;       ///< CSV header and JSON key
  std::string heading1;  ///< first text-table heading line (may be empty)
  std::string heading2;  ///< second text-table heading line
  std::string markdown;  ///< Markdown heading
  Align align = Align::kRight;
  size_t width = 0;
  size_t sep = 2;
  int decimals = 2;              ///< for number cells in table and Markdown
  bool in_table = true;          ///< shown in the text table and Markdown
  bool hide_when_empty = false;  ///< left out of table and Markdown when no row has a value
  bool machine_last = false;     ///< in CSV and JSON after every other column
  /// The widest the text table shows a text cell (0: as wide as it is); a
  /// longer one keeps its start and end around "…". CSV, JSON, Markdown and
  /// HTML carry it whole.
  size_t max_width = 0;
};

/// A heading over several adjacent columns on the first heading line, placed
/// over their combined width (right-aligned like the seed's "Maximum (MiB)").
struct Span {
  size_t first = 0, last = 0;  ///< column indices, inclusive
  std::string text;
  Align align = Align::kRight;
};

/// A cell's text, shared by every cell made from one copy: an operation's
/// name, which may be a long command line, is stored once however many
/// process rows show it.
class CellText {
 public:
  CellText() = default;
  explicit CellText(std::string s) : text_(std::make_shared<const std::string>(std::move(s))) {}
  const std::string& str() const { return text_ ? *text_ : empty_string(); }

 private:
  static const std::string& empty_string() {
    static const std::string empty;
    return empty;
  }
  std::shared_ptr<const std::string> text_;
};

struct Cell {
  /// kUnknown: a figure nobody counted ("–" in tables, empty in CSV, null in
  /// JSON), never printed as 0.
  enum class Kind { kEmpty, kText, kNumber, kInteger, kPercent, kNotApplicable, kUnknown };
  Kind kind = Kind::kEmpty;
  /// A percent beyond noise: printed with the digits it needs to be non-zero.
  bool significant = false;
  CellText text;
  double number = 0;
  int64_t integer = 0;
  /// Appended to the cell in the text table and Markdown only (compare's
  /// verdict marks: "*", "~"; a static string); CSV and JSON carry the same in
  /// their own fields.
  const char* mark = "";

  static Cell empty() { return {}; }
  static Cell of_text(std::string s) { return of_text(CellText(std::move(s))); }
  static Cell of_text(CellText s) { return {Kind::kText, false, std::move(s), 0, 0, ""}; }
  static Cell of_number(double v) { return {Kind::kNumber, false, {}, v, 0, ""}; }
  static Cell of_integer(int64_t v) { return {Kind::kInteger, false, {}, 0, v, ""}; }
  static Cell of_percent(double v) { return {Kind::kPercent, false, {}, v, 0, ""}; }
  static Cell not_applicable() { return {Kind::kNotApplicable, false, {}, 0, 0, ""}; }
  static Cell unknown() { return {Kind::kUnknown, false, {}, 0, 0, ""}; }
};

struct Row {
  std::vector<Cell> cells;
  std::string group;  ///< the text table puts a blank line where the group changes
  /// false: a row for people only (the text table and Markdown), whose
  /// figures CSV and JSON carry in fields of another row.
  bool machine = true;
};

struct Table {
  std::vector<Column> columns;
  std::vector<Span> spans;
  std::vector<Row> rows;
  /// Footnotes: lines after the text table and Markdown (CSV and JSON carry
  /// the same information in their fields).
  std::vector<std::string> notes;
};

}  // namespace account
