/// The picture of a history: for each operation and figure, every run as a
/// dot and every commit's median, each segment's median as a line across it,
/// the change points marked at their commits. Drawn with the charts' own
/// scales and tick rule (parse/formats/chart_geometry.h) from the same
/// series and change points as the tables.
#pragma once

#include <string>
#include <vector>

#include "history_report.h"

namespace account {

/// One self-contained SVG document of every (operation, figure) panel.
std::string history_svg(const History& history, const std::vector<SeriesChanges>& changes);

/// A page: the tables and the picture (formats/html_page.h).
std::string history_html(const History& history, const std::vector<SeriesChanges>& changes,
                         const Table& series, const Table& points);

}  // namespace account
