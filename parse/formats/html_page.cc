#include "formats/html_page.h"

#include <fmt/format.h>

#include "cell_text.h"
#include "formats/chart_geometry.h"
#include "formats/html_zoom.h"

namespace account {

namespace {

constexpr const char* kStyle = R"css(
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 920px; color: #222;
       padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
h3 { font-size: 1em; margin: 1.2em 0 0.3em; color: #444; }
p.meta, p.note { color: #666; font-size: 0.9em; }
p.note { background: #f6f6f6; border-left: 3px solid #bbb; padding: 0.4em 0.7em; }
table { border-collapse: collapse; font-size: 0.85em; font-variant-numeric: tabular-nums; }
th, td { padding: 0.15em 0.6em; border-bottom: 1px solid #eee; }
th, td.num { white-space: nowrap; }
div.table { overflow-x: auto; }
th { text-align: left; font-weight: 600; border-bottom: 1px solid #999; }
td.num, th.num { text-align: right; }
tr.group-start td { border-top: 1px solid #bbb; }
svg.chart { max-width: 100%; height: auto; display: block; }
div.tip { position: fixed; display: none; pointer-events: none; z-index: 10; max-width: 520px;
          background: #222; color: #fff; font-size: 12px; line-height: 1.35; padding: 0.4em 0.6em;
          border-radius: 4px; white-space: pre-line; overflow-wrap: anywhere; }
a { color: #2a5d9f; }
body.wide { max-width: 1320px; }
div.builds { display: grid; grid-template-columns: repeat(auto-fit, minmax(600px, 1fr));
             gap: 0 1.5em; }
h4 { font-size: 0.95em; margin: 0.8em 0 0.2em; }
)css";

}  // namespace

std::string html_escape(const std::string& s) {
  return xml_escape(s);
}

std::string table_html(const Table& t, const std::vector<size_t>& rows) {
  std::vector<size_t> cols = visible_columns(t);
  // Numbers stay on one line, text cells (notes) wrap; a table wider than
  // the page scrolls in its box, never the page.
  std::string out = "<div class=\"table\"><table>\n<tr>";
  for (size_t c : cols)
    out += fmt::format("<th class=\"{}\">{}</th>", t.columns[c].align == Align::kRight ? "num" : "",
                       html_escape(t.columns[c].markdown));
  out += "</tr>\n";
  std::string group;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = t.rows[rows[i]];
    bool starts = i > 0 && r.group != group;
    group = r.group;
    out += starts ? "<tr class=\"group-start\">" : "<tr>";
    for (size_t c : cols)
      out +=
          fmt::format("<td class=\"{}\">{}</td>", t.columns[c].align == Align::kRight ? "num" : "",
                      html_escape(display_text(r.cells[c], t.columns[c])));
    out += "</tr>\n";
  }
  return out + "</table></div>\n";
}

std::string notes_html(const Table& t) {
  std::string out;
  for (const std::string& n : t.notes)
    out += "<p class=\"meta footnote\">" + html_escape(n) + "</p>\n";
  return out;
}

std::string note(const std::string& text) {
  return "<p class=\"note\">" + text + "</p>\n";
}

// HTML parses an inline <svg> into the SVG namespace by itself: without the
// xmlns attribute the page holds no "http:" at all.
std::string inline_svg(std::string svg) {
  const std::string ns = " xmlns=\"http://www.w3.org/2000/svg\"";
  if (size_t at = svg.find(ns); at != std::string::npos) svg.erase(at, ns.size());
  return svg;
}

namespace {

// Hover: each chart element's <title> becomes a tooltip that follows the
// pointer (the <title> stays the no-script fallback until this runs). The
// page records what a test reads back from the DOM: how many tooltips were
// set up, its scroll width, and any script error.
constexpr const char* kScript = R"js(
(function () {
  var root = document.documentElement;
  window.addEventListener('error', function (e) {
    root.setAttribute('data-js-errors', (root.getAttribute('data-js-errors') || '') + e.message + ';');
  });
  var tip = document.createElement('div');
  tip.className = 'tip';
  document.body.appendChild(tip);
  var titles = document.querySelectorAll('svg.chart title'), i;
  for (i = 0; i < titles.length; ++i) {
    var el = titles[i].parentNode;
    el.setAttribute('data-tip', titles[i].textContent);
    el.removeChild(titles[i]);
  }
  document.addEventListener('mousemove', function (e) {
    var el = e.target.closest ? e.target.closest('[data-tip]') : null;
    if (!el) { tip.style.display = 'none'; return; }
    tip.textContent = el.getAttribute('data-tip');
    tip.style.display = 'block';
    var x = e.clientX + 14, y = e.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth - 8) x = Math.max(8, e.clientX - tip.offsetWidth - 14);
    if (y + tip.offsetHeight > window.innerHeight - 8) y = Math.max(8, e.clientY - tip.offsetHeight - 14);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  });
  root.setAttribute('data-tips', String(titles.length));
  root.setAttribute('data-scroll-width', String(root.scrollWidth));
})();
)js";

}  // namespace

std::string page_tail() {
  return fmt::format("<script>{}{}</script>\n</body>\n</html>\n", kScript, zoom_script());
}

std::string page_head(const std::string& title, bool wide) {
  return fmt::format(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}{}</style>\n</head>\n<body{}>\n<h1>{}</h1>\n",
      html_escape(title), kStyle, zoom_style(), wide ? " class=\"wide\"" : "", html_escape(title));
}

}  // namespace account
