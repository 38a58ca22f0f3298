#include <algorithm>

#include "cell_text.h"
#include "formats/table_formats.h"

namespace account {

namespace {

void put(std::string& line, size_t at, const std::string& text) {
  if (line.size() < at + text.size()) line.resize(at + text.size(), ' ');
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] != ' ') line[at + i] = text[i];
}

std::string cell_text(const Cell& cell, const Column& column) {
  std::string text = display_text(cell, column);
  return column.max_width ? elide_middle(text, column.max_width) : text;
}

class TextTableFormat : public TableFormat {
 public:
  std::string render(const Table& t) const override {
    std::vector<size_t> cols = visible_columns(t);
    std::vector<size_t> width(cols.size()), sep(cols.size());
    for (size_t i = 0; i < cols.size(); ++i) {
      const Column& col = t.columns[cols[i]];
      sep[i] = i == 0 ? 0 : col.sep;
      size_t w = col.width;
      for (const Row& r : t.rows) w = std::max(w, display_width(cell_text(r.cells[cols[i]], col)));
      for (const std::string* h : {&col.heading1, &col.heading2}) {
        size_t need =
            col.align == Align::kRight && h->size() > sep[i] ? h->size() - sep[i] : h->size();
        w = std::max(w, need);
      }
      width[i] = w;
    }
    // A span sits right-aligned over its columns; widen the last one if it is too short.
    auto position = [&](size_t c) -> size_t {
      auto it = std::find(cols.begin(), cols.end(), c);
      return it == cols.end() ? cols.size() : size_t(it - cols.begin());
    };
    for (const Span& s : t.spans) {
      size_t a = position(s.first), b = position(s.last);
      if (a >= cols.size() || b >= cols.size()) continue;
      size_t total = 0;
      for (size_t i = a; i <= b; ++i) total += sep[i] + width[i];
      if (total < s.text.size()) width[b] += s.text.size() - total;
    }
    std::vector<size_t> start(cols.size());  // where each field starts
    size_t x = 0;
    for (size_t i = 0; i < cols.size(); ++i) {
      start[i] = x + sep[i];
      x = start[i] + width[i];
    }
    // `shift`: bytes of the line so far beyond its characters (UTF-8 "–").
    auto place = [&](std::string& line, size_t i, const std::string& text, Align align,
                     size_t shift = 0) {
      if (text.empty()) return;
      size_t end = start[i] + width[i] + shift + text.size() - display_width(text);
      if (align == Align::kRight)
        put(line, end >= text.size() ? end - text.size() : 0, text);
      else if (align == Align::kLeft)
        put(line, start[i] + shift, text);
      else
        put(line, start[i] + shift + (width[i] - std::min(width[i], text.size()) + 1) / 2, text);
    };

    std::string out;
    std::string h1, h2;
    for (size_t i = 0; i < cols.size(); ++i) {
      const Column& col = t.columns[cols[i]];
      place(h1, i, col.heading1, col.align);
      place(h2, i, col.heading2, col.align);
    }
    for (const Span& s : t.spans) {
      size_t a = position(s.first), b = position(s.last);
      if (a >= cols.size() || b >= cols.size()) continue;
      size_t end = start[b] + width[b];
      if (s.align == Align::kRight) {
        put(h1, end - s.text.size(), s.text);
      } else {
        size_t from = start[a] - sep[a], room = end - from;
        put(h1, from + (s.align == Align::kLeft ? 0 : (room - s.text.size()) / 2), s.text);
      }
    }
    for (const std::string* h : {&h1, &h2}) {
      std::string line = rstrip(*h);
      if (!line.empty()) out += line + '\n';
    }
    std::string dashes;
    for (size_t i = 0; i < cols.size(); ++i)
      dashes += std::string(sep[i], ' ') + std::string(width[i], '-');
    out += dashes + '\n';
    const std::string* group = nullptr;
    for (const Row& r : t.rows) {
      if (group && *group != r.group) out += '\n';
      group = &r.group;
      std::string line;
      for (size_t i = 0; i < cols.size(); ++i) {
        const Column& col = t.columns[cols[i]];
        std::string text = cell_text(r.cells[cols[i]], col);
        size_t shift = line.size() - display_width(line);
        line.resize(start[i] + shift, ' ');
        place(line, i, text, col.align == Align::kCenter ? Align::kLeft : col.align, shift);
      }
      out += rstrip(line) + '\n';
    }
    return out + notes_text(t);
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_text_table_format() {
  return std::make_unique<TextTableFormat>();
}

}  // namespace account
