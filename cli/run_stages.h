/// account run's own cost, stage by stage, for perf-tests/run-pairs.sh: with
/// ACCOUNT_RUN_STAGES_FD=N (a descriptor above 2 that account inherited open),
/// each stage of a run writes "stage SECONDS.NANOSECONDS NAME" (the monotonic
/// clock) there as it is reached. Without it, nothing but one getenv.
#pragma once

namespace account {

void run_stage(const char* name);

}  // namespace account
