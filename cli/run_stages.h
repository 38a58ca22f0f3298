/// account run's own cost, stage by stage, for perf-tests/run-pairs.sh: with
/// ACCOUNT_RUN_STAGES_FD=N (a descriptor above 2 that account inherited open),
/// each stage of a run writes "stage SECONDS.NANOSECONDS NAME" (the monotonic
/// clock) there as it is reached. Without it, nothing but one getenv.
#pragma once

#include <cstdint>

namespace account {

void run_stage(const char* name);
/// A stage reached at `monotonic_ns`, by another process: the command's exec,
/// which its vfork child times (stamped by account after the spawn returns,
/// it could come after the command's own first stage on a busy machine).
void run_stage_at(const char* name, uint64_t monotonic_ns);

}  // namespace account
