/// The `account` subcommands. Each takes the arguments after its own name and
/// returns the process exit status.
#pragma once

#include <string>
#include <vector>

namespace account {

using Args = std::vector<std::string>;

int command_run(const Args& args);
int command_report(const Args& args);
int command_compare(const Args& args);
int command_watch(const Args& args);
int command_export(const Args& args);
int command_store(const Args& args);
int command_history(const Args& args);
int command_bisect(const Args& args);

/// --format NAME for report and compare (throws UsageError for an unknown name).
enum class Format;
Format format_option(const std::string& name);

/// One line on stderr, its control characters escaped (parse/text_escape.h):
/// messages name files, labels and argv that came from records.
void print_message(const std::string& line);

/// Thrown for bad usage; main prints "account: <what>" and exits 1.
struct UsageError {
  std::string what;
};

}  // namespace account
