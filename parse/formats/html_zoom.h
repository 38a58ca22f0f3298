/// Zoom on the page's charts with a time axis (memory over time, processes):
/// drag across a chart to zoom into that time range, double-click it or press
/// its "Reset zoom" button to zoom out. Without script the charts are drawn
/// whole, as the tool drew them.
///
/// A zoomed axis is re-ticked in the browser: a static page cannot ask the
/// tool for the ticks of a range picked by the mouse, so the script holds a
/// JavaScript copy of nice_ticks and format_seconds_tick (chart_geometry.cc).
/// Its constants are generated from chart_geometry.h; the browser test
/// (tests/parse/html_browser_zoom.py) checks that both give the same labels.
#pragma once

#include <string>

namespace account {

/// The script (JavaScript, without the <script> tags). It needs the chart
/// markup of svg_charts.cc: `data-zoom` on the <svg>, the ticks in
/// `g.x-axis`, the curves in `g.zoom-curves`, the bars in `g.zoom-bars`.
const std::string& zoom_script();

/// The style rules of the zoom's cursor, stroke and buttons.
const char* zoom_style();

}  // namespace account
