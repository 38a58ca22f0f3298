// LineReader: lines across chunk boundaries, a last line without newline, and
// read_records naming bad lines FILE:LINE.
#include "reader.h"

#include <gtest/gtest.h>

#include "golden.h"

namespace account {
namespace {

using testing::TempFile;

std::vector<std::pair<std::string, bool>> lines_of(const std::string& content) {
  TempFile f(content);
  std::string error;
  auto reader = LineReader::open(f.path(), &error);
  EXPECT_TRUE(reader) << error;
  std::vector<std::pair<std::string, bool>> out;
  std::string_view line;
  bool complete = false;
  while (reader && reader->next(&line, &complete)) out.emplace_back(std::string(line), complete);
  return out;
}

TEST(Reader, SplitsLines) {
  auto lines = lines_of("a\n\nbc\nlast");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], std::make_pair(std::string("a"), true));
  EXPECT_EQ(lines[1], std::make_pair(std::string(""), true));
  EXPECT_EQ(lines[2], std::make_pair(std::string("bc"), true));
  EXPECT_EQ(lines[3], std::make_pair(std::string("last"), false));
  EXPECT_TRUE(lines_of("").empty());
}

TEST(Reader, LinesLongerThanTheChunkAndAcrossIt) {
  // The reader reads 1 MiB at a time: a 3 MiB line, then lines straddling the boundaries.
  std::string big(3 << 20, 'x');
  std::string small(1000, 'y');
  std::string content = big + "\n";
  for (int i = 0; i < 5000; ++i) content += small + std::to_string(i) + "\n";
  auto lines = lines_of(content);
  ASSERT_EQ(lines.size(), 5001u);
  EXPECT_EQ(lines[0].first, big);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(lines[size_t(i) + 1].first, small + std::to_string(i));
}

TEST(Reader, OpenFailureSaysWhy) {
  std::string error;
  EXPECT_FALSE(LineReader::open("/nonexistent/x.jsonl", &error));
  EXPECT_EQ(error, "/nonexistent/x.jsonl: cannot open: No such file or directory");
}

TEST(Reader, ADirectoryCannotBeRead) {
  std::string error;
  auto reader = LineReader::open("/", &error);
  ASSERT_TRUE(reader);
  std::string_view line;
  bool complete;
  EXPECT_FALSE(reader->next(&line, &complete));
  EXPECT_EQ(reader->error(), "/: cannot read: Is a directory");
}

TEST(Reader, ReadRecordsNamesBadLines) {
  std::string error;
  auto reader = LineReader::open(testing::data_path("bad.jsonl"), &error);
  ASSERT_TRUE(reader) << error;
  std::vector<int64_t> pids;
  std::vector<std::string> bad;
  ReadSummary s;
  read_records(
      *reader, false, [&](Record&& r) { pids.push_back(std::get<ProcessRecord>(r).pid); },
      [&](const BadLine& b) { bad.push_back(std::to_string(b.line) + ": " + b.reason); }, &s);
  EXPECT_EQ(pids, (std::vector<int64_t>{600, 601}));
  EXPECT_EQ(s.records, 2u);
  EXPECT_EQ(s.bad_lines, 7u);
  EXPECT_FALSE(s.stopped);
  ASSERT_EQ(bad.size(), 7u);
  EXPECT_EQ(bad[0], "2: not JSON (syntax error)");
  EXPECT_EQ(bad[6], "10: truncated last line (no newline): not JSON (incomplete JSON)");
}

TEST(Reader, StrictStopsAtTheFirstBadLine) {
  std::string error;
  auto reader = LineReader::open(testing::data_path("bad.jsonl"), &error);
  ASSERT_TRUE(reader) << error;
  int records = 0;
  std::vector<std::string> bad;
  ReadSummary s;
  read_records(
      *reader, true, [&](Record&&) { ++records; },
      [&](const BadLine& b) { bad.push_back(b.message()); }, &s);
  EXPECT_EQ(records, 1);
  EXPECT_TRUE(s.stopped);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0], testing::data_path("bad.jsonl") + ":2: not JSON (syntax error)");
}

std::vector<std::pair<std::string, bool>> lines_of_text(const std::string& content) {
  auto reader = LineReader::from_text(content, "<records so far>");
  std::vector<std::pair<std::string, bool>> out;
  std::string_view line;
  bool complete = false;
  while (reader->next(&line, &complete)) out.emplace_back(std::string(line), complete);
  EXPECT_EQ(reader->error(), "");
  return out;
}

// account watch's metrics read its records from memory: the same lines, the
// same last line without newline, the same numbering as from a file.
TEST(Reader, TextReadsAsAFileOfTheSameText) {
  std::string big(3 << 20, 'x');
  for (const std::string& content :
       {std::string(""), std::string("a\n\nbc\nlast"), std::string("one\n"),
        big + "\n" + std::string(1000, 'y') + "\n" + big}) {
    auto from_text = lines_of_text(content);
    EXPECT_EQ(from_text, lines_of(content)) << content.size() << " bytes";
  }
  EXPECT_EQ(lines_of_text("a\n\nbc\nlast").size(), 4u);
}

TEST(Reader, TextBadLinesAreNamedByTheGivenName) {
  auto reader = LineReader::from_text("{\"schema\":1}\nnot json\n", "<watch 42>");
  std::vector<std::string> bad;
  ReadSummary s;
  read_records(
      *reader, false, [&](Record&&) {}, [&](const BadLine& b) { bad.push_back(b.message()); }, &s);
  EXPECT_EQ(s.bad_lines, 2u);
  ASSERT_EQ(bad.size(), 2u);
  EXPECT_EQ(bad[1], "<watch 42>:2: not JSON (syntax error)");
  EXPECT_EQ(bad[0].rfind("<watch 42>:1: ", 0), 0u) << bad[0];
}

}  // namespace
}  // namespace account
