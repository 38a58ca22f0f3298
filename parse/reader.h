/// Streaming input: records read one line at a time from files or standard
/// input, every bad line named as FILE:LINE with its reason.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "record.h"

namespace account {

/// Lines of one file (or "-": standard input), read in large chunks. Memory is
/// the chunk plus the longest line, whatever the file's size.
class LineReader {
 public:
  /// Opens `path`; on failure returns nullptr and puts the system's reason in *error.
  static std::unique_ptr<LineReader> open(const std::string& path, std::string* error);
  /// Reads `text` as a file holding it would be read; `name` stands for it in
  /// messages (account watch's records so far, for its metrics).
  static std::unique_ptr<LineReader> from_text(std::string text, std::string name);
  ~LineReader();

  /// The next line without its newline; false at the end of the input.
  /// *complete is false for a last line that has no newline (a writer cut short).
  bool next(std::string_view* line, bool* complete);
  /// 1-based number of the line `next` returned last.
  uint64_t line_number() const { return line_number_; }
  /// What to call the input in messages: the path, or "<stdin>" for "-".
  const std::string& name() const { return name_; }
  /// Non-empty when reading failed part way (e.g. the path is a directory).
  const std::string& error() const { return error_; }
  /// Ends reading with `error` (a file that cannot be read as a whole).
  void fail(std::string error) {
    error_ = std::move(error);
    eof_ = true;
  }

 private:
  LineReader(std::FILE* f, bool owned, std::string name);
  LineReader(std::string text, std::string name);
  bool fill();

  std::FILE* file_;  ///< nullptr: the whole input is already in buffer_
  bool owned_;
  std::string name_;
  std::string error_;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  uint64_t line_number_ = 0;
};

/// One line that is not a valid record.
struct BadLine {
  std::string file;
  uint64_t line = 0;
  std::string reason;
  /// "FILE:LINE: reason", as printed on stderr.
  std::string message() const;
};

/// What reading a set of inputs came to.
struct ReadSummary {
  uint64_t records = 0;
  uint64_t bad_lines = 0;
  bool stopped = false;  ///< strict mode stopped at the first bad line
};

/// Reads every line of `reader`: each valid record goes to `on_record`, each bad
/// one to `on_bad`. Empty lines are skipped silently. With `strict`, stops at the
/// first bad line. A record of a newer schema ends the reading of the file with
/// reader.error() "FILE holds schema N records; this account reads schema 1".
void read_records(LineReader& reader, bool strict, const std::function<void(Record&&)>& on_record,
                  const std::function<void(const BadLine&)>& on_bad, ReadSummary* summary);

/// As read_records, also handing on the line of each valid record, for readers
/// of keys a Record leaves out (the backtraces of `account export`).
void read_records_with_lines(LineReader& reader, bool strict,
                             const std::function<void(Record&&, std::string_view line)>& on_record,
                             const std::function<void(const BadLine&)>& on_bad,
                             ReadSummary* summary);

}  // namespace account
