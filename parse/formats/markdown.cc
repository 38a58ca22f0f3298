#include "cell_text.h"
#include "formats/table_formats.h"

namespace account {

namespace {

// Pipes would end the cell, and Markdown passes HTML through: both escaped.
std::string markdown_cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

class MarkdownFormat : public TableFormat {
 public:
  std::string render(const Table& t) const override {
    std::vector<size_t> cols = visible_columns(t);
    std::string head = "|", rule = "|";
    for (size_t c : cols) {
      const Column& col = t.columns[c];
      head += " " + markdown_cell(col.markdown) + " |";
      rule += col.align == Align::kRight ? " ---: |" : " :--- |";
    }
    std::string out = head + '\n' + rule + '\n';
    for (const Row& r : t.rows) {
      std::string line = "|";
      for (size_t c : cols)
        line += " " + markdown_cell(rstrip(display_text(r.cells[c], t.columns[c]))) + " |";
      out += line + '\n';
    }
    return out + notes_text(t);
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_markdown_format() {
  return std::make_unique<MarkdownFormat>();
}

}  // namespace account
