/// The per-run figures a report can be about, by name (--percentiles, --sort,
/// --fail-on), their value in a run and whether it was counted: all read from
/// the figure registry (figures.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "aggregate.h"
#include "figures.h"

namespace account {

/// "wall", "cpu", "size", "resident", "anon", "heap", "copied", "malloc";
/// nullopt otherwise.
std::optional<Metric> parse_metric(std::string_view name);
/// "unknown metric 'NAME' (known: wall, cpu, ...)".
/// Every metric's name, in the registry's order: "wall, cpu, ...".
std::string metric_name_list();
std::string unknown_metric(std::string_view name);
/// The name parse_metric takes.
const char* metric_name(Metric m);

/// The figure in the unit the tables print: seconds, or MiB.
double metric_of(const RunFigures& r, Metric m);
/// Whether the run's records counted the figure at all (false: unknown, not
/// 0): anon without sampled_rss_anon_peak_bytes; copied, malloc and heap when
/// no process of the run had the shim (a static program, a watched server);
/// malloc and heap when no process's malloc was the shim's either.
bool metric_counted(const RunFigures& r, Metric m);
/// Counted, but some processes of the run ran without the shim, or (a malloc
/// figure) with a malloc not the shim's: the figure leaves theirs out (a lower
/// bound), and says so (without_shim_note, malloc_unseen_note).
bool metric_partly_counted(const RunFigures& r, Metric m);
/// "2 of 27 processes ran without the shim".
std::string without_shim_note(const RunFigures& r);
/// "1 of 27 processes had a malloc not the shim's".
std::string malloc_unseen_note(const RunFigures& r);
/// What the run's figures leave out, for one line: the two notes above, those
/// that apply, joined by "; " ("" when the shim counted every process).
std::string uncounted_notes(const RunFigures& r);
/// The same from counts: `without_shim` of `all` processes.
std::string without_shim_note(uint64_t without_shim, uint64_t all);
/// "1 process", "2 processes".
std::string processes_phrase(uint64_t n);

struct MetricInfo {
  const char* key;      ///< the column key in CSV and JSON ("cpu_s")
  const char* heading;  ///< a heading for the figure ("CPU (s)")
  int decimals;         ///< decimals where the figure is printed alone
};
MetricInfo info_of(Metric m);

}  // namespace account
