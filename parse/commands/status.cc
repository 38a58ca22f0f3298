#include "commands/status.h"

#include <fmt/format.h>

namespace account {

int final_status(int read_status, bool failed_runs_seen, GateStatus gate) {
  if (read_status == 1) return 1;
  if (gate == GateStatus::kFailed) return kStatusGateFailed;
  if (gate == GateStatus::kNotJudged) return kStatusNotJudged;
  if (read_status != 0) return read_status;
  return failed_runs_seen ? kStatusFailedRuns : 0;
}

GateStatus settle_gate(const GateVerdict& v, const char* command, bool allow_unjudged,
                       const MessageSink& err) {
  for (const std::string& r : v.failures) err(r);
  for (const std::string& r : v.within_family_noise) err(r);
  for (const std::string& r : v.unjudged) err(r);
  if (v.not_judged > 0 || v.judged == 0)
    err(fmt::format("account: {}: --fail-on: {} of {} gated figures not judged: {}", command,
                    v.not_judged, v.judged + v.not_judged,
                    !v.failures.empty() ? "exit status 3, which wins over 5"
                    : allow_unjudged    ? "passed (--allow-unjudged)"
                                        : "exit status 5 (--allow-unjudged passes them)"));
  return !v.failures.empty()                                      ? GateStatus::kFailed
         : (v.not_judged > 0 || v.judged == 0) && !allow_unjudged ? GateStatus::kNotJudged
                                                                  : GateStatus::kPassed;
}

}  // namespace account
