/// account run --prepare CMD: `sh -c CMD` before each repetition, unaccounted
/// (as hyperfine's --prepare): without the shim in LD_PRELOAD and without any
/// ACCOUNT_* variable, so it writes no record and is in no tree record.
#pragma once

#include <string>
#include <vector>

#include "run_signals.h"

namespace account {

/// This process's environment without ACCOUNT_* variables and without `shim`
/// in LD_PRELOAD (unset when nothing else is left in it).
std::vector<std::string> unaccounted_environment(const std::string& shim);

struct PrepareResult {
  int status = 0;       // raw wait status; 127 << 8 if sh could not be started
  int interrupted = 0;  // a signal account run got meanwhile (passed on to sh)
};

/// Runs `sh -c command` with `env` and waits for it, passing on the signals
/// account run receives meanwhile (SIGKILL `kill_after_s` after the first).
PrepareResult run_prepare(const std::string& command, const std::vector<std::string>& env,
                          RunSignals& signals, double kill_after_s);

}  // namespace account
