// account report --format html: a page that makes no network request, whose
// table holds exactly what `account report` prints for the same records,
// with the charts that the records allow and a note where they do not.
#include "formats/html_report.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "golden.h"

namespace account {
namespace {

using testing::data_path;
using testing::Outcome;
using testing::TempFile;

Outcome page_of(const std::string& path) {
  ReportOptions o;
  o.files = {path};
  o.format = Format::kHtml;
  return testing::report(o);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string collapse(const std::string& line) {
  std::istringstream words(line);
  std::string w, out;
  while (words >> w) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string unescape(std::string s) {
  for (auto [from, to] : {std::pair<std::string, std::string>{"&lt;", "<"},
                          {"&gt;", ">"},
                          {"&quot;", "\""},
                          {"&#39;", "'"},
                          {"&amp;", "&"}})
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  return s;
}

// The rows of the page's first table, each row's cells joined by one space.
std::vector<std::string> first_table_rows(const std::string& html) {
  std::string table = html.substr(html.find("<table>"));
  table = table.substr(0, table.find("</table>"));
  std::vector<std::string> rows;
  std::regex row("<tr[^>]*>(.*?)</tr>"), cell("<td[^>]*>(.*?)</td>");
  for (auto r = std::sregex_iterator(table.begin(), table.end(), row); r != std::sregex_iterator();
       ++r) {
    std::string inner = (*r)[1], joined;
    for (auto c = std::sregex_iterator(inner.begin(), inner.end(), cell);
         c != std::sregex_iterator(); ++c)
      joined += (joined.empty() ? "" : " ") + unescape((*c)[1]);
    if (!joined.empty()) rows.push_back(collapse(joined));  // the heading row has <th> cells
  }
  return rows;
}

TEST(HtmlReport, MakesNoNetworkRequestOfAnyKind) {
  Outcome o = page_of(data_path("export/records.jsonl"));
  ASSERT_EQ(o.status, 0);
  const std::string& html = o.out;
  for (const char* banned : {"http:", "https:", "//", "@import", "<link", "<iframe", "<img",
                             "<object", "<embed", " src=", "fetch(", "XMLHttpRequest"})
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  // url( only for data: (there is none today), href only to anchors on the page.
  for (size_t at = html.find("url("); at != std::string::npos; at = html.find("url(", at + 1))
    EXPECT_EQ(html.compare(at, 9, "url(data:"), 0) << html.substr(at, 40);
  std::regex href("href=\"([^\"]*)\"");
  size_t hrefs = 0;
  for (auto h = std::sregex_iterator(html.begin(), html.end(), href); h != std::sregex_iterator();
       ++h, ++hrefs)
    EXPECT_EQ((*h)[1].str().substr(0, 4), "#op-");
  EXPECT_EQ(hrefs, 2u);
  // The one script is inline.
  EXPECT_EQ(count(html, "<script"), 1u);
  EXPECT_EQ(count(html, "<script>"), 1u);
}

TEST(HtmlReport, TableRowsHoldExactlyWhatReportPrints) {
  for (const char* file : {"export/records.jsonl", "ops.jsonl", "failed.jsonl"}) {
    Outcome page = page_of(data_path(file));
    ReportOptions text;
    text.files = {data_path(file)};
    Outcome table = testing::report(text);
    ASSERT_EQ(page.status, table.status) << file;
    std::vector<std::string> lines;
    std::istringstream in(table.out);
    std::string line;
    for (int i = 0; std::getline(in, line); ++i) {
      if (line.rfind("Exit:", 0) == 0) break;  // the notes follow
      if (i >= 3 && !line.empty() && line[0] != '(') lines.push_back(collapse(line));
    }
    std::vector<std::string> rows = first_table_rows(page.out);
    ASSERT_FALSE(rows.empty()) << file;
    EXPECT_EQ(rows, lines) << file << "\n" << table.out;
  }
}

TEST(HtmlReport, EachOperationHasItsRowAndTheChartsItsRecordsAllow) {
  Outcome o = page_of(data_path("export/records.jsonl"));
  ASSERT_EQ(o.status, 0);
  // git/clone: memory, processes and allocations; git/status: processes only
  // (no timeline, no backtraces), with a note where each other chart would be.
  EXPECT_EQ(count(o.out, "<svg class=\"chart\""), 4u);
  EXPECT_EQ(count(o.out, "aria-label=\"memory over time\""), 1u);
  EXPECT_EQ(count(o.out, "aria-label=\"process timeline\""), 2u);
  EXPECT_EQ(count(o.out, "aria-label=\"where large allocations come from\""), 1u);
  EXPECT_EQ(count(o.out,
                  "No timeline in these records: record one with <code>account run "
                  "--timeline</code>"),
            1u);
  EXPECT_EQ(count(o.out, "No allocation backtraces in these records"), 1u);
  // Under each heading its own row of the table (and the table at the top).
  EXPECT_EQ(count(o.out, "<td class=\"\">clone</td>"), 2u);
  EXPECT_EQ(count(o.out, "<td class=\"\">status</td>"), 2u);
  // Median wall of two runs: the lower one is drawn, and the page says so.
  EXPECT_NE(o.out.find("run 1 of 2, the one with the median wall time (0.003 s)"),
            std::string::npos);
}

TEST(HtmlReport, AnEmptyFileGivesAPageThatSaysSo) {
  TempFile empty("");
  Outcome o = page_of(empty.path());
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("<p class=\"note\">No records in these files.</p>"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("</html>"), std::string::npos);
}

TEST(HtmlReport, ARunWithOneSampleGetsANoteNotAChart) {
  TempFile one(
      R"({"schema":1,"pid":7,"ppid":1,"exe":"/bin/true","argv":["true"],"test":"t","op":"o",)"
      R"("start_ns":1000,"end_ns":2000000,"cpu_user_s":0,"cpu_sys_s":0,"malloc_bytes":0,)"
      R"("malloc_calls":0,"free_calls":0,"copied_bytes":0,"copied_calls":0,"heap_peak_bytes":0,)"
      R"("vm_peak_bytes":4096,"rss_peak_bytes":4096,"sampled_size_peak_bytes":4096,)"
      R"("sampled_rss_peak_bytes":4096,"samples":1,"end":"exit","exit_code":0,)"
      R"("timeline":{"t_ms":[0],"size":[4096],"rss":[4096]}})"
      "\n");
  Outcome o = page_of(one.path());
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("Only one sample in this run's timeline"), std::string::npos) << o.out;
  EXPECT_EQ(count(o.out, "<svg class=\"chart\""), 1u);  // the process timeline
}

// A run recorded with --timeline that ended before its first sample (git
// commit in 2 ms, perf-test --scale full) is not told to record a timeline.
TEST(HtmlReport, ARunWithoutASampleSaysItWasTooShort) {
  TempFile none(
      R"({"schema":1,"pid":7,"ppid":1,"exe":"/bin/true","argv":["true"],"test":"t","op":"o",)"
      R"("start_ns":1000000,"end_ns":3000000,"cpu_user_s":0,"cpu_sys_s":0,"malloc_bytes":0,)"
      R"("malloc_calls":0,"free_calls":0,"copied_bytes":0,"copied_calls":0,"heap_peak_bytes":0,)"
      R"("vm_peak_bytes":4096,"rss_peak_bytes":4096,"sampled_size_peak_bytes":0,)"
      R"("sampled_rss_peak_bytes":0,"samples":0,"end":"exit","exit_code":0,)"
      R"("timeline":{"t_ms":[],"size":[],"rss":[]}})"
      "\n");
  Outcome o = page_of(none.path());
  EXPECT_EQ(o.status, 0);
  EXPECT_NE(o.out.find("No sample in this run's timeline: the run (2.0 ms) was shorter than the "
                       "sampling interval"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(o.out.find("No timeline in these records"), std::string::npos);
  EXPECT_EQ(count(o.out, "<svg class=\"chart\""), 1u);  // the process timeline
}

TEST(HtmlReport, OneChartAsAStandaloneSvg) {
  ReportOptions o;
  o.files = {data_path("export/records.jsonl")};
  o.chart = "processes";
  o.chart_test = "git";
  o.chart_op = "clone";
  Outcome r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\"", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find(">git-remote-https 101</text>"), std::string::npos);
  o.chart_op = "nope";
  r = testing::report(o);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, std::vector<std::string>{"account: report: no operation 'git/nope' in the "
                                            "records (there: 'git/clone', 'git/status')"});
  o.chart_op = "status";
  o.chart = "memory";
  r = testing::report(o);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("No timeline in these records: record one with account run --timeline"),
            std::string::npos)
      << r.out;
  ASSERT_EQ(r.err.size(), 1u);
  EXPECT_EQ(r.err[0].rfind("account: report: git/status: No timeline", 0), 0u);
}

// account compare --format html: compare's table, row for row, and per
// operation the bars of the table's own figures with the change in brackets.
// Issue 33.3: the page shows the table's footnotes, the text report's own
// lines: the † note of an operation some processes ran without the shim in,
// and the failed-runs note.
const char kWithoutShim[] =
    R"({"schema":1,"kind":"process","pid":11,"ppid":1,"exe":"/bin/sh","argv":["sh"],"test":"t","op":"o","start_ns":1000,"end_ns":2000000000,"cpu_user_s":0.5,"cpu_sys_s":0,"malloc_bytes":2097152,"malloc_calls":1,"free_calls":1,"copied_bytes":1048576,"copied_calls":1,"heap_peak_bytes":0,"vm_peak_bytes":1048576,"rss_peak_bytes":1048576,"sampled_size_peak_bytes":0,"sampled_rss_peak_bytes":0,"samples":0,"end":"exit","exit_code":0})"
    "\n"
    R"({"schema":1,"kind":"tree","test":"t","op":"o","run":1,"command":["sh"],"start_ns":0,"end_ns":2000000000,"processes":2,"processes_without_shim":1,"sampled_size_peak_bytes":0,"sampled_rss_peak_bytes":0,"samples":1,"aborted":false,"exit_code":0})"
    "\n";

std::vector<std::string> footnotes_of(const std::string& html) {
  std::vector<std::string> out;
  std::regex p("<p class=\"meta footnote\">(.*?)</p>");
  for (auto m = std::sregex_iterator(html.begin(), html.end(), p); m != std::sregex_iterator(); ++m)
    out.push_back(unescape((*m)[1]));
  return out;
}

TEST(HtmlReport, ThePageShowsTheTablesFootnotes) {
  TempFile without_shim(kWithoutShim);
  Outcome page = page_of(without_shim.path());
  EXPECT_EQ(footnotes_of(page.out),
            std::vector<std::string>{
                "\u2020 t/o: 1 of 2 processes ran without the shim; its Copied and Malloc leave "
                "theirs out."})
      << page.out;
  EXPECT_NE(page.out.find("<td class=\"num\">1.0\u2020</td><td class=\"num\">2.0\u2020</td>"),
            std::string::npos)
      << page.out;
  ReportOptions text;
  text.files = {without_shim.path()};
  EXPECT_NE(testing::report(text).out.find(footnotes_of(page.out)[0]), std::string::npos);

  Outcome failed = page_of(data_path("failed.jsonl"));
  EXPECT_EQ(footnotes_of(failed.out),
            (std::vector<std::string>{
                "Exit: failed runs (exit status not 0, a signal other than its stop signal, --timeout, interrupted) are left "
                "out of the figures and Runs; --include-failed counts them.",
                "clone/clone: 2 of 3 failed: exit 128; its figures are of the 1 ok run.",
                "clone/gc: 2 of 2 failed: aborted (timeout), interrupted (signal 2); no run is "
                "left for its figures."}));
}

TEST(CompareHtml, ThePageShowsTheTablesFootnotes) {
  TempFile without_shim(kWithoutShim);
  CompareOptions o;
  o.files = {without_shim.path(), without_shim.path()};
  o.names = {"a", "b"};
  Outcome text = testing::compare(o);
  o.format = Format::kHtml;
  Outcome page = testing::compare(o);
  std::vector<std::string> notes = footnotes_of(page.out);
  ASSERT_FALSE(notes.empty()) << page.out;
  EXPECT_EQ(notes[0],
            "\u2020 t/o (a): 1 of 2 processes ran without the shim; its Copied and Malloc leave "
            "theirs out.");
  EXPECT_EQ(notes[1],
            "\u2020 t/o (b): 1 of 2 processes ran without the shim; its Copied and Malloc leave "
            "theirs out.");
  for (const std::string& n : notes) EXPECT_NE(text.out.find(n), std::string::npos) << n;
}

TEST(CompareHtml, TheTableAndTheBarsAreCompareOwnFigures) {
  CompareOptions o;
  o.files = {data_path("a.jsonl"), data_path("b.jsonl"), data_path("c.jsonl")};
  o.names = {"a", "b", "c"};
  Outcome text = testing::compare(o);
  o.format = Format::kHtml;
  Outcome page = testing::compare(o);
  ASSERT_EQ(page.status, text.status);
  for (const char* banned : {"http:", "https:", "//", "@import", " src="})
    EXPECT_EQ(page.out.find(banned), std::string::npos) << banned;
  std::vector<std::string> lines;
  std::istringstream in(text.out);
  std::string line;
  // The footnotes ("Change: ...", "Exit: ...") follow the rows in the text, under the table
  // on the page.
  std::regex footnote("^[A-Z][a-z]+: .*");
  for (int i = 0; std::getline(in, line); ++i)
    if (i >= 3 && !line.empty() && !std::regex_match(line, footnote))
      lines.push_back(collapse(line));
  EXPECT_EQ(first_table_rows(page.out), lines) << text.out;
  // One bar chart per operation; alpha/add: b's size 12.00 is +20.0% on a's 10.00.
  EXPECT_EQ(count(page.out, "aria-label=\"figures of each build\""), 4u);
  EXPECT_NE(page.out.find("<title>b: 12.00  (+20.0%)</title>"), std::string::npos) << page.out;
  EXPECT_NE(page.out.find("<title>c: 2.50  (-50.0%)</title>"), std::string::npos);
  // No timelines in these records: the memory section says so, once per operation.
  EXPECT_EQ(count(page.out, "No build has a timeline for this operation"), 4u);
  // A build without the operation says so where its allocations would be and
  // in its heading on the shared process timeline: alpha/commit is only in a,
  // beta/checkout not in c, gamma/new only in b.
  EXPECT_EQ(count(page.out, "Not in this build's records."), 2u + 1 + 2);
  EXPECT_EQ(count(page.out, "not in this build&#39;s records</text>"), 2u + 1 + 2);
  // One process timeline per operation, every build's rows on its one axis.
  EXPECT_EQ(count(page.out, "aria-label=\"process timeline\""), 4u);
  EXPECT_EQ(count(page.out, "font-weight=\"600\">a</text>"), 3u);
}

// Issue 33: the interval row under a change names no operation; it stays in
// its operation's section instead of making an empty " — " section of its own.
TEST(CompareHtml, IntervalRowsStayInTheirOperationsSection) {
  CompareOptions o;
  o.files = {data_path("noise-base.jsonl"), data_path("noise-slower.jsonl")};
  o.format = Format::kHtml;
  Outcome page = testing::compare(o);
  std::regex heading("<h2>([^<]*)</h2>");
  std::vector<std::string> headings;
  for (auto it = std::sregex_iterator(page.out.begin(), page.out.end(), heading);
       it != std::sregex_iterator(); ++it)
    headings.push_back((*it)[1]);
  EXPECT_EQ(headings, (std::vector<std::string>{"clone — clone", "status — status"}));
  EXPECT_EQ(page.out.find("<h2> — </h2>"), std::string::npos);
}

// compare --format html of records with timelines: each build's memory curve
// in one chart with a legend naming the builds, and one process timeline per
// operation with every build's rows under its name.
TEST(CompareHtml, BuildsShareOneMemoryChartAndOneTimelinePerOperation) {
  CompareOptions o;
  o.files = {data_path("export/records.jsonl"), data_path("export/records.jsonl")};
  o.names = {"before", "after"};
  o.format = Format::kHtml;
  Outcome page = testing::compare(o);
  // git/clone has a timeline, git/status none.
  EXPECT_EQ(count(page.out, "aria-label=\"memory over time\""), 1u);
  EXPECT_EQ(count(page.out, ">before: whole tree, resident</text>"), 1u) << page.out;
  EXPECT_EQ(count(page.out, ">after: whole tree, resident</text>"), 1u);
  EXPECT_EQ(count(page.out, "aria-label=\"process timeline\""), 2u);
  EXPECT_EQ(count(page.out, "font-weight=\"600\">before</text>"), 2u);
  EXPECT_EQ(count(page.out, "font-weight=\"600\">after</text>"), 2u);
}

// Issue 33.6: a page is written a section at a time, so an operation's points
// (read back from the timeline spool) are dropped before the next is drawn:
// the head and table, one piece per operation, the tail; the same bytes as whole.
TEST(HtmlPages, AreWrittenOneOperationSectionAtATime) {
  auto pieces_of = [](auto run, const auto& options) {
    std::vector<std::string> pieces;
    EXPECT_EQ(run(
                  options, [&](std::string_view b) { pieces.emplace_back(b); },
                  [](const std::string&) {}),
              0);
    return pieces;
  };
  ReportOptions r;
  r.files = {data_path("export/records.jsonl")};
  r.format = Format::kHtml;
  std::vector<std::string> report =
      pieces_of([](const ReportOptions& o, const ByteSink& out,
                   const MessageSink& err) { return run_report(o, out, err); },
                r);
  CompareOptions c;
  c.files = {data_path("export/records.jsonl"), data_path("export/records.jsonl")};
  c.format = Format::kHtml;
  std::vector<std::string> compare =
      pieces_of([](const CompareOptions& o, const ByteSink& out,
                   const MessageSink& err) { return run_compare(o, out, err); },
                c);
  for (const auto& [pieces, whole] :
       {std::pair{report, page_of(r.files[0]).out}, std::pair{compare, testing::compare(c).out}}) {
    ASSERT_EQ(pieces.size(), 4u);  // git/clone and git/status
    EXPECT_EQ(pieces[0].find("<section"), std::string::npos);
    EXPECT_EQ(pieces[1].rfind("<section id=\"op-0\">", 0), 0u);
    EXPECT_EQ(pieces[2].rfind("<section id=\"op-1\">", 0), 0u);
    EXPECT_EQ(pieces[3].find("<section"), std::string::npos);
    EXPECT_EQ(pieces[0] + pieces[1] + pieces[2] + pieces[3], whole);
  }
}

}  // namespace
}  // namespace account
