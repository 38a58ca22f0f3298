/// The pieces every HTML page of account shares (report, compare, a single
/// table): the head with its inline style, the table, notes, inline SVG and
/// the tail with the one inline script (tooltips; zoom: html_zoom.h). No piece refers to
/// anything outside the page.
#pragma once

#include <string>
#include <vector>

#include "table.h"

namespace account {

/// Text for HTML text and attribute values.
std::string html_escape(const std::string& s);
/// The doctype, head, style and <h1>; `wide`: up to 1320 px for charts side by side.
std::string page_head(const std::string& title, bool wide = false);
/// The inline script and the closing tags.
std::string page_tail();
/// `rows` of `t`, cells as the text table shows them (display_text).
std::string table_html(const Table& t, const std::vector<size_t>& rows);
/// The table's footnotes (Table::notes: the † "N of M processes ran without the
/// shim" notes, the failed-runs note), one paragraph each, as the text table
/// ends with them.
std::string notes_html(const Table& t);
/// A grey box saying why a chart is missing (text may hold <code>).
std::string note(const std::string& text);
/// A chart's SVG for inline use: without the xmlns attribute, so the page
/// holds no "http:" at all (HTML puts an inline <svg> in the SVG namespace).
std::string inline_svg(std::string svg);

}  // namespace account
