#include "cell_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "text_escape.h"

namespace account {

size_t display_width(std::string_view text) {
  // UTF-8: every byte but a continuation byte starts a character.
  return size_t(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string elide_middle(const std::string& text, size_t max) {
  size_t chars = display_width(text);
  if (chars <= max) return text;
  // The byte offset of character `n` (UTF-8: continuation bytes start none).
  auto offset = [&](size_t n) {
    size_t at = 0;
    for (size_t seen = 0; at < text.size(); ++at)
      if ((static_cast<unsigned char>(text[at]) & 0xC0) != 0x80 && seen++ == n) break;
    return at;
  };
  size_t head = (max - 1) * 2 / 3, tail = max - 1 - head;
  return text.substr(0, offset(head)) + "\u2026" + text.substr(offset(chars - tail));
}

int nonzero_decimals(double v, int decimals) {
  if (v == 0 || !std::isfinite(v)) return decimals;
  return std::max(decimals, std::min(17, int(-std::floor(std::log10(std::abs(v))))));
}

std::string percent_text(double pct, bool significant) {
  std::string s = fmt::format("{:+.{}f}%", pct, significant ? nonzero_decimals(pct, 1) : 1);
  return s == "+0.0%" || s == "-0.0%" ? "0.0%" : s;
}

namespace {

std::string cell_text(const Cell& cell, const Column& column) {
  switch (cell.kind) {
    case Cell::Kind::kEmpty:
      return {};
    case Cell::Kind::kText:
      return escape_control(cell.text.str());  // a row stays one line
    case Cell::Kind::kNumber:
      return fmt::format("{:.{}f}", cell.number, column.decimals);
    case Cell::Kind::kInteger:
      return fmt::format("{}", cell.integer);
    case Cell::Kind::kPercent:
      return percent_text(cell.number, cell.significant);
    case Cell::Kind::kNotApplicable:
      return "N/A";
    case Cell::Kind::kUnknown:
      return kUnknownText;
  }
  return {};
}

}  // namespace

std::string display_text(const Cell& cell, const Column& column) {
  return cell_text(cell, column) + cell.mark;
}

std::vector<size_t> visible_columns(const Table& t) {
  std::vector<size_t> out;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const Column& col = t.columns[c];
    if (!col.in_table) continue;
    if (col.hide_when_empty && std::all_of(t.rows.begin(), t.rows.end(), [&](const Row& r) {
          return r.cells[c].kind == Cell::Kind::kEmpty;
        }))
      continue;
    out.push_back(c);
  }
  return out;
}

}  // namespace account
