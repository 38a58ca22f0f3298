/// How a table's cells read as text: the rules every format that shows a
/// Table to people shares (the text table, Markdown, HTML, SVG) and that
/// compare's interval text follows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "table.h"

namespace account {

/// What a figure nobody counted reads as in tables, Markdown, HTML and SVG.
inline constexpr char kUnknownText[] = "\u2013";  // –
/// Characters of UTF-8 text (the width a terminal gives it, for the dashes here).
size_t display_width(std::string_view text);

/// The text of one cell as the table and Markdown show it (its mark included).
std::string display_text(const Cell& cell, const Column& column);

/// `text` in at most `max` characters (max >= 3): its start, "…" and its end.
std::string elide_middle(const std::string& text, size_t max);

/// The columns the text table, Markdown and HTML show, in order.
std::vector<size_t> visible_columns(const Table& table);

/// A change in percent as the tables print it: "+12.3%", "-0.4%", "0.0%" for
/// no change at this precision. A `significant` change (beyond noise) that is
/// not 0 gets the decimals it needs to show one non-zero digit: "-0.02%",
/// "+0.00001%", never "0.0%".
std::string percent_text(double pct, bool significant = false);
/// `decimals`, or more where `v` is not 0 but would print as 0 with them: as
/// many as one non-zero digit needs (the rule percent_text follows).
int nonzero_decimals(double v, int decimals);

}  // namespace account
