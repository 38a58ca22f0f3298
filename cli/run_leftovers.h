/// What a killed `account run` leaves: its image directory and temporary
/// output. Their names carry the run's pid (account-run-PID-XXXXXX), so the
/// next run of the same user finds them once that pid is gone and removes them.
#pragma once

#include <string>
#include <vector>

namespace account {

/// BASE/account-run-PID-XXXXXX plus `suffix` ("" or ".jsonl"): the name of a
/// run's leftover, as mkdtemp/mkstemps templates.
std::string run_name_template(const std::string& base, const std::string& suffix);

/// Removes from each of `bases` the entries named by run_name_template whose
/// run is gone: owned by this effective uid, the pid no longer alive (a pid in
/// use again keeps them), and no directory of that pid locked by a run (a
/// lingering sampler holds its run's lock after account run ended:
/// tree/image_directory.h). A directory loses its files (never followed through
/// a link) and then itself. Returns one line per run found, for stderr.
std::vector<std::string> remove_dead_runs(const std::vector<std::string>& bases);

}  // namespace account
