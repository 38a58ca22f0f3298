// The zoom of the HTML pages (parse/html_zoom.cc): the script is in each page
// once, generated with the tick rule's constants, and every chart with a time
// axis carries what it needs. The zoom itself runs in a real browser:
// html_browser_zoom.py (ctest parse.HtmlReportInABrowser).
#include "formats/html_zoom.h"

#include <gtest/gtest.h>

#include <regex>

#include "formats/chart_geometry.h"
#include "golden.h"

namespace account {
namespace {

using testing::data_path;
using testing::Outcome;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlZoom, ScriptIsGeneratedWithTheTickRulesConstants) {
  const std::string& script = zoom_script();
  EXPECT_NE(script.find("var MULTIPLIERS = [1, 2, 5, 10], TIME_TICKS = 8, MAX_DECIMALS = 6, "
                        "SLACK = 1e-09;"),
            std::string::npos)
      << script.substr(0, 300);
  // The copy of the rule reads them, it does not hold its own numbers.
  EXPECT_NE(script.find("niceTicks(lo, hi, TIME_TICKS)"), std::string::npos);
  EXPECT_EQ(script.find("[1, 2, 5, 10]"), script.rfind("[1, 2, 5, 10]"));
  // Nothing a page must not hold: no URL, no "//" (not even a comment).
  for (const char* banned : {"http:", "https:", "//", "url(", "fetch(", "import"})
    EXPECT_EQ(script.find(banned), std::string::npos) << banned;
}

TEST(HtmlZoom, TheReportPageHoldsTheScriptOnceAndEveryTimeChartIsZoomable) {
  ReportOptions o;
  o.files = {data_path("export/records.jsonl")};
  o.format = Format::kHtml;
  Outcome page = testing::report(o);
  ASSERT_EQ(page.status, 0);
  EXPECT_EQ(count(page.out, zoom_script()), 1u);
  EXPECT_EQ(count(page.out, "<script"), 1u);
  EXPECT_EQ(count(page.out, zoom_style()), 1u);
  // One memory chart and two process timelines (export/records.jsonl); the
  // icicle has no time axis.
  EXPECT_EQ(count(page.out, " data-zoom=\""), 3u);
  EXPECT_EQ(count(page.out, "<g class=\"x-axis\">"), 3u);
  EXPECT_EQ(count(page.out, "<g class=\"zoom-curves\">"), 1u);
  EXPECT_EQ(count(page.out, "<g class=\"zoom-bars\">"), 2u);
  // The seconds a chart shows run from 0 to its last tick, the label the
  // axis ends with: the script maps pixels to seconds with them.
  std::regex chart(
      "data-zoom=\"([0-9.]+) ([0-9.]+) 0 ([0-9.e-]+)\">[\\s\\S]*?<g class=\"x-axis\">[\\s\\S]*?"
      ">([0-9.]+ s)</text>(</g>)?\n</g>");
  size_t checked = 0;
  for (auto m = std::sregex_iterator(page.out.begin(), page.out.end(), chart);
       m != std::sregex_iterator(); ++m, ++checked) {
    double seconds = std::stod((*m)[3]);
    EXPECT_EQ(time_axis(0, seconds).labels.back(), (*m)[4].str());
    EXPECT_LT(std::stod((*m)[1]), std::stod((*m)[2]));
  }
  EXPECT_EQ(checked, 3u);
}

TEST(HtmlZoom, TheComparePageHoldsTheScriptOnceAndOneTimelinePerOperation) {
  CompareOptions o;
  o.files = {data_path("a.jsonl"), data_path("b.jsonl")};
  o.names = {"a", "b"};
  o.format = Format::kHtml;
  Outcome page = testing::compare(o);
  EXPECT_EQ(count(page.out, zoom_script()), 1u);
  EXPECT_EQ(count(page.out, "<script"), 1u);
  // a and b hold four operations between them (alpha/add, alpha/commit,
  // beta/checkout, gamma/new), each one shared timeline.
  EXPECT_EQ(count(page.out, "<section id=\"op-"), 4u);
  EXPECT_EQ(count(page.out, "aria-label=\"process timeline\""), 4u);
  EXPECT_EQ(count(page.out, " data-zoom=\""), 4u);
}

}  // namespace
}  // namespace account
