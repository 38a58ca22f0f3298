/// Whether a record file can take records, found out before the command
/// starts, without leaving anything in it.
#pragma once

#include <string>

namespace account {

/// Opens `path` for appending (creating it, as the shim would) and writes a
/// probe that leaves no trace:
/// - a regular file: a probe line of the size of a typical record is appended
///   and truncated away again, both under the exclusive flock every record
///   writer takes (the shim, account run, account watch), so a record another
///   run appends to a shared file is never cut off or interleaved (a lock
///   held elsewhere for over a second: the file is only opened);
/// - a character device: a write of zero bytes, which reports a full or broken
///   device (/dev/full: ENOSPC) and shows nothing on a terminal;
/// - a FIFO or socket: opening only, without blocking (a probe would reach
///   its reader; one with no reader is refused).
/// Returns "" or the reason (strerror text).
std::string probe_record_file(const std::string& path);

}  // namespace account
