#include "figure_sums.h"

#include <utility>

namespace account {

ProcFigures figures_of(const ProcessRecord& p, std::string command) {
  ProcFigures f;
  f.pid = p.pid;
  f.namespace_pid = p.namespace_pid;
  f.exec = p.end == "exec";
  f.counted = p.counted;
  f.malloc_counted = p.counted && p.malloc_interposed;
  for (const Figure& fig : figures()) {
    size_t i = size_t(fig.metric);
    if (fig.malloc_counter && !f.malloc_counted) continue;  // unknown: 0 and not recorded
    if (fig.process_seconds) f.seconds[i] = fig.process_seconds(p);
    if (fig.process_bytes) f.bytes[i] = fig.process_bytes(p);
    if (fig.process_counter) {
      if (std::optional<uint64_t> v = fig.process_counter(p)) {
        f.bytes[i] = *v;
        f.recorded |= recorded_bit(fig.metric);
      }
    }
  }
  f.start_ns = p.start_ns;
  f.end_ns = p.end_ns;
  f.end = end_of_process(p);
  f.command = std::move(command);
  return f;
}

// A process's figures as a run of that one process.
RunFigures own_figures(const ProcFigures& f) {
  RunFigures r;
  for (const Figure& fig : figures()) {
    size_t i = size_t(fig.metric);
    if (fig.seconds && fig.summed != Summed::kSpan) r.*fig.seconds = f.seconds[i];
    if (fig.bytes) r.*fig.bytes = f.bytes[i];
  }
  r.recorded = f.recorded;
  r.processes = 1;
  r.processes_over_runs = 1;
  r.shim_processes = f.counted ? 1 : 0;
  r.processes_without_shim = f.counted ? 0 : 1;
  r.malloc_unseen_processes = f.counted && !f.malloc_counted ? 1 : 0;
  return r;
}

}  // namespace account
