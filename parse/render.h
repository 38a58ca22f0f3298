/// One renderer per output format, all behind one interface.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "table.h"

namespace account {

enum class Format { kTable, kCsv, kJson, kMarkdown, kHtml };

/// "table", "csv", "json", "markdown", "html"; nullopt for anything else.
std::optional<Format> parse_format(std::string_view name);

class Renderer {
 public:
  virtual ~Renderer() = default;
  /// The whole table as the bytes to print.
  virtual std::string render(const Table& table) const = 0;
};

std::unique_ptr<Renderer> make_renderer(Format format);

/// The columns the text table, Markdown and HTML show, in order.
std::vector<size_t> visible_columns(const Table& table);

/// What a figure nobody counted reads as in tables, Markdown, HTML and SVG.
inline constexpr char kUnknownText[] = "\u2013";  // –
/// Characters of UTF-8 text (the width a terminal gives it, for the dashes here).
size_t display_width(std::string_view text);

/// The text of one cell as the table and Markdown show it (its mark included).
std::string display_text(const Cell& cell, const Column& column);

/// A change in percent as the tables print it: "+12.3%", "-0.4%", "0.0%" for
/// no change at this precision. A `significant` change (beyond noise) that is
/// not 0 gets the decimals it needs to show one non-zero digit: "-0.02%",
/// "+0.00001%", never "0.0%".
std::string percent_text(double pct, bool significant = false);
/// `decimals`, or more where `v` is not 0 but would print as 0 with them: as
/// many as one non-zero digit needs (the rule percent_text follows).
int nonzero_decimals(double v, int decimals);

}  // namespace account
