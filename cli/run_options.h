/// account run's options: what it is told, checked before anything runs.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "commands/budget.h"
#include "run_cgroup.h"
#include "sampling.h"

namespace account {

/// The status of a run account run itself could not carry out: a --prepare
/// failed, records were lost (the output filled up during the run), or
/// --cgroup=require could not be met. As env, nohup and timeout use 125 for
/// their own failures.
constexpr int kRunFailed = 125;

/// What --help says after the options.
extern const char kRunHelp[];

struct RunOptions {
  std::string test, op, output, backtrace_min, backtrace_sample, prepare;
  // As typed: checked by check_values, never wrapped by an unsigned parse.
  std::string interval_text, timeout_text, repeat_text, kill_after_text;
  unsigned interval_ms = kDefaultIntervalMs;
  /// The loop that follows the command turns at --interval, or at the
  /// default where --interval 0 turns sampling off.
  unsigned tick_ms() const { return interval_ms ? interval_ms : kDefaultIntervalMs; }
  bool timeline = false;
  bool leaks = false;  // --leaks: ACCOUNT_BACKTRACE_LEAKS=1
  double timeout_s = 0;  // 0: none
  double kill_after_s = 5;
  unsigned repeat = 1;
  bool quiet = false;
  std::vector<std::string> stop_signal_texts;
  std::vector<int> stop_signals;  // ended by one of these, the run is stopped, not failed
  std::string budget_text;
  std::vector<Budget> budgets;
  std::string cgroup_text = "auto";
  CgroupMode cgroup = CgroupMode::kAuto;
  std::optional<CgroupPlace> cgroup_place;  // found once, before the first run
  std::string no_cgroup_place;              // why there is none
  std::vector<std::string> command;
  // --store/--commit: the run's records kept in the results store (store/add.h).
  std::string store, commit, repo = ".", branch;
};

boost::program_options::options_description run_options(RunOptions& o);

/// Splits "options -- command" (or "options command" when no "--" is given: the
/// first argument that is neither an option nor an option's value starts it).
void split_command(const Args& args, Args* options, Args* command);

/// Every value is checked before any work starts (UsageError: one line, exit 1).
void check_values(RunOptions& o, const boost::program_options::variables_map& vm);

}  // namespace account
