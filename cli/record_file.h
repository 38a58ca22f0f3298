/// The record files the tools write to: opened for appending, created 0600,
/// never through a symbolic link, one write per record (as the shim does).
#pragma once

#include <string>

namespace account {

/// Opens (creating) `path` for appending and closes it again, so a bad path
/// fails before any work starts. Returns "" or the reason.
std::string check_record_file(const std::string& path);

/// Takes the exclusive flock every writer of a record file takes, waiting at
/// most a second (the shim's bound): false when another process held it that
/// long, or flock failed. Released by close().
bool lock_within_a_second(int fd);

/// Appends `line` with a single write. Returns "" or the reason.
std::string append_record_line(const std::string& path, const std::string& line);

}  // namespace account
