/// Whole /proc files as strings, for the tools. Plain read(2): a process can
/// vanish mid-read (ESRCH), and std::ifstream then throws from underflow.
#pragma once

#include <string>

namespace account {

/// The file's contents, or "" if it cannot be read (gone, no permission).
std::string read_proc_text(const std::string& path);

}  // namespace account
