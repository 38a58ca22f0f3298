/// `-o FILE` of every command that writes a file (report, compare, export,
/// watch --textfile): the one rule for how an output reaches its path.
/// - Checked before any work starts: a bad path fails at once; an output that
///   is one of the command's inputs (same device and inode, through symbolic
///   or hard links) is refused before anything is read.
/// - A regular file (or no file) is written to a temporary file in the
///   target's directory (O_EXCL, so never through a link), synced and renamed
///   into place at commit: a failed or interrupted command leaves the old file
///   (or none), never a part. A symbolic link at the target is replaced, never
///   followed; one that leads to anything but a regular file is refused.
/// - A character device named as such (/dev/null, a terminal) is written
///   directly; a FIFO, socket, block device or directory is refused with one
///   line (a FIFO without a reader would block the command for ever).
/// - "" or "-": standard output.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace account {

class OutputFile {
 public:
  /// `inputs`: the command's input files ("-" is standard input), refused as
  /// the output. `mode`: the new file's; default: the old file's, or 0644 less
  /// the umask. Throws UsageError ("COMMAND: cannot write PATH: reason", or
  /// "COMMAND: -o PATH is also an input: ...") when the output cannot be made.
  OutputFile(const std::string& command, const std::string& path,
             const std::vector<std::string>& inputs = {}, std::optional<mode_t> mode = {});
  /// Without commit(): the temporary file is removed, the target untouched.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Appends bytes (to the temporary file, the device or standard output); a
  /// failure is kept and reported by commit().
  void append(std::string_view bytes);
  /// Syncs and renames the temporary file into place; throws UsageError on any
  /// failure of this or an earlier append (the old file then stays).
  void commit();
  /// append(bytes) and commit().
  void write(std::string_view bytes);

 private:
  [[noreturn]] void fail(const std::string& reason) const;

  std::string command_, path_, temp_;
  int fd_ = -1;
  bool to_stdout_ = false;
  int error_ = 0;  ///< errno of the first failed append
};

/// Replaces `path` by `text` as OutputFile does, with mode `mode`; returns ""
/// or the reason (account watch --textfile, which must not stop on a failure).
std::string replace_file(const std::string& path, std::string_view text, mode_t mode);

}  // namespace account
