#include "commands/status.h"

namespace account {

int final_status(int read_status, bool failed_runs_seen, GateStatus gate) {
  if (read_status == 1) return 1;
  if (gate == GateStatus::kFailed) return kStatusGateFailed;
  if (gate == GateStatus::kNotJudged) return kStatusNotJudged;
  if (read_status != 0) return read_status;
  return failed_runs_seen ? kStatusFailedRuns : 0;
}

}  // namespace account
