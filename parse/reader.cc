#include "reader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace account {

namespace {
constexpr size_t kChunk = 1 << 20;
}

std::unique_ptr<LineReader> LineReader::open(const std::string& path, std::string* error) {
  if (path == "-") return std::unique_ptr<LineReader>(new LineReader(stdin, false, "<stdin>"));
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *error = fmt::format("{}: cannot open: {}", path, std::strerror(errno));
    return nullptr;
  }
  return std::unique_ptr<LineReader>(new LineReader(f, true, path));
}

std::unique_ptr<LineReader> LineReader::from_text(std::string text, std::string name) {
  return std::unique_ptr<LineReader>(new LineReader(std::move(text), std::move(name)));
}

LineReader::LineReader(std::FILE* f, bool owned, std::string name)
    : file_(f), owned_(owned), name_(std::move(name)), buffer_(kChunk) {}

LineReader::LineReader(std::string text, std::string name)
    : file_(nullptr),
      owned_(false),
      name_(std::move(name)),
      buffer_(text.begin(), text.end()),
      end_(buffer_.size()),
      eof_(true) {}

LineReader::~LineReader() {
  if (owned_) std::fclose(file_);
}

// Moves the unread tail to the front and reads more after it; grows the buffer
// when one line fills it. False when nothing more could be read.
bool LineReader::fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  size_t n = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
  if (n == 0) {
    if (std::ferror(file_))
      error_ = fmt::format("{}: cannot read: {}", name_, std::strerror(errno));
    eof_ = true;
    return false;
  }
  end_ += n;
  return true;
}

bool LineReader::next(std::string_view* line, bool* complete) {
  size_t scanned = begin_;
  for (;;) {
    const char* start = buffer_.data() + begin_;
    // An empty text's buffer has no data() at all: nothing to search.
    const void* nl =
        end_ > scanned ? std::memchr(buffer_.data() + scanned, '\n', end_ - scanned) : nullptr;
    if (nl) {
      const char* stop = static_cast<const char*>(nl);
      *line = std::string_view(start, size_t(stop - start));
      *complete = true;
      begin_ = size_t(stop - buffer_.data()) + 1;
      ++line_number_;
      return true;
    }
    size_t offset = end_ - begin_;
    if (!fill()) break;
    scanned = begin_ + offset;
  }
  if (begin_ == end_) return false;
  *line = std::string_view(buffer_.data() + begin_, end_ - begin_);
  *complete = false;
  begin_ = end_;
  ++line_number_;
  return true;
}

std::string BadLine::message() const {
  return fmt::format("{}:{}: {}", file, line, reason);
}

void read_records(LineReader& reader, bool strict, const std::function<void(Record&&)>& on_record,
                  const std::function<void(const BadLine&)>& on_bad, ReadSummary* summary) {
  read_records_with_lines(
      reader, strict, [&](Record&& r, std::string_view) { on_record(std::move(r)); }, on_bad,
      summary);
}

void read_records_with_lines(LineReader& reader, bool strict,
                             const std::function<void(Record&&, std::string_view line)>& on_record,
                             const std::function<void(const BadLine&)>& on_bad,
                             ReadSummary* summary) {
  RecordParser parser;
  std::string_view line;
  bool complete = true;
  std::string reason;
  while (reader.next(&line, &complete)) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    std::optional<Record> record = parser.parse(line, &reason);
    if (record) {
      ++summary->records;
      on_record(std::move(*record), line);
      continue;
    }
    if (uint64_t schema = parser.newer_schema()) {
      reader.fail(fmt::format("{} holds schema {} records; this account reads schema {}",
                              reader.name(), schema, kSchemaRead));
      return;
    }
    ++summary->bad_lines;
    if (!complete) reason = fmt::format("truncated last line (no newline): {}", reason);
    on_bad(BadLine{reader.name(), reader.line_number(), reason});
    if (strict) {
      summary->stopped = true;
      return;
    }
  }
}

}  // namespace account
