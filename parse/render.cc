#include "render.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>

#include "html_report.h"
#include "text_escape.h"

namespace account {

std::optional<Format> parse_format(std::string_view name) {
  if (name == "table") return Format::kTable;
  if (name == "csv") return Format::kCsv;
  if (name == "json") return Format::kJson;
  if (name == "markdown" || name == "md") return Format::kMarkdown;
  if (name == "html") return Format::kHtml;
  return std::nullopt;
}

size_t display_width(std::string_view text) {
  // UTF-8: every byte but a continuation byte starts a character.
  return size_t(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
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
      return escape_control(cell.text);  // a row stays one line
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

namespace {

// Full precision, base form: what CSV and JSON carry.
std::string raw_number(double v) {
  return fmt::format("{}", v);
}

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

void put(std::string& line, size_t at, const std::string& text) {
  if (line.size() < at + text.size()) line.resize(at + text.size(), ' ');
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] != ' ') line[at + i] = text[i];
}

// The footnotes after a blank line, as the text table and Markdown end.
std::string notes_text(const Table& t) {
  std::string out;
  for (const std::string& n : t.notes) out += escape_control(n) + '\n';
  return out.empty() ? out : '\n' + out;
}

class TextTableRenderer : public Renderer {
 public:
  std::string render(const Table& t) const override {
    std::vector<size_t> cols = visible_columns(t);
    std::vector<size_t> width(cols.size()), sep(cols.size());
    for (size_t i = 0; i < cols.size(); ++i) {
      const Column& col = t.columns[cols[i]];
      sep[i] = i == 0 ? 0 : col.sep;
      size_t w = col.width;
      for (const Row& r : t.rows)
        w = std::max(w, display_width(display_text(r.cells[cols[i]], col)));
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
        std::string text = display_text(r.cells[cols[i]], col);
        size_t shift = line.size() - display_width(line);
        line.resize(start[i] + shift, ' ');
        place(line, i, text, col.align == Align::kCenter ? Align::kLeft : col.align, shift);
      }
      out += rstrip(line) + '\n';
    }
    return out + notes_text(t);
  }
};

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

std::string json_string(const std::string& s) {
  return boost::json::serialize(boost::json::string_view(s));
}

// A cell for the machine formats (CSV, JSON): full precision, base units;
// `quote` renders text, `missing` stands for an empty cell.
std::string machine_value(const Cell& cell, std::string (*quote)(const std::string&),
                          const char* missing) {
  switch (cell.kind) {
    case Cell::Kind::kText:
      return quote(cell.text);
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

class CsvRenderer : public Renderer {
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

class JsonRenderer : public Renderer {
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

class MarkdownRenderer : public Renderer {
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

std::unique_ptr<Renderer> make_renderer(Format format) {
  switch (format) {
    case Format::kCsv:
      return std::make_unique<CsvRenderer>();
    case Format::kJson:
      return std::make_unique<JsonRenderer>();
    case Format::kMarkdown:
      return std::make_unique<MarkdownRenderer>();
    case Format::kHtml:
      return make_html_table_renderer();
    case Format::kTable:
      break;
  }
  return std::make_unique<TextTableRenderer>();
}

}  // namespace account
