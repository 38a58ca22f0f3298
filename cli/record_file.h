/// The record files the tools write to: opened for appending, created 0600,
/// never through a symbolic link, one write per record (as the shim does).
#pragma once

#include <string>

namespace account {

/// Opens (creating) `path` for appending and closes it again, so a bad path
/// fails before any work starts. Returns "" or the reason.
std::string check_record_file(const std::string& path);

/// Appends `line` with a single write. Returns "" or the reason.
std::string append_record_line(const std::string& path, const std::string& line);

}  // namespace account
