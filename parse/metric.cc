#include "metric.h"

#include <fmt/format.h>

#include <algorithm>

namespace account {

const char* metric_name(Metric m) {
  return figure(m).name;
}

std::optional<Metric> parse_metric(std::string_view name) {
  for (const Figure& f : figures())
    if (name == f.name) return f.metric;
  return std::nullopt;
}

std::string metric_name_list() {
  std::string names;
  for (const Figure& f : figures()) names += fmt::format("{}{}", names.empty() ? "" : ", ", f.name);
  return names;
}

std::string unknown_metric(std::string_view name) {
  return fmt::format("unknown metric '{}' (known: {})", name, metric_name_list());
}

bool metric_counted(const RunFigures& r, Metric m) {
  const Figure& f = figure(m);
  switch (f.known) {
    case Known::kWhenRecorded:
      return base_value(r, f) > 0;
    case Known::kWithShim:
      return r.shim_processes > (f.malloc_counter ? r.malloc_unseen_processes : 0);
    case Known::kWhenPresent:
      return (r.recorded & recorded_bit(m)) != 0;
    case Known::kAlways:
      break;
  }
  return true;
}

bool metric_partly_counted(const RunFigures& r, Metric m) {
  const Figure& f = figure(m);
  if (!metric_counted(r, m) || (f.known != Known::kWithShim && !f.shim_counter)) return false;
  return r.processes_without_shim > 0 || (f.malloc_counter && r.malloc_unseen_processes > 0);
}

std::string without_shim_note(uint64_t without_shim, uint64_t all) {
  all = std::max(all, without_shim);
  return fmt::format("{} of {} process{} ran without the shim", without_shim, all,
                     all == 1 ? "" : "es");
}

std::string processes_phrase(uint64_t n) {
  return fmt::format("{} process{}", n, n == 1 ? "" : "es");
}

std::string without_shim_note(const RunFigures& r) {
  return without_shim_note(r.processes_without_shim, r.processes_over_runs);
}

std::string malloc_unseen_note(const RunFigures& r) {
  uint64_t all = std::max(r.processes, r.malloc_unseen_processes);
  return fmt::format("{} of {} process{} had a malloc not the shim's", r.malloc_unseen_processes,
                     all, all == 1 ? "" : "es");
}

std::string uncounted_notes(const RunFigures& r) {
  std::string notes = r.processes_without_shim ? without_shim_note(r) : "";
  if (r.malloc_unseen_processes) notes += (notes.empty() ? "" : "; ") + malloc_unseen_note(r);
  return notes;
}

double metric_of(const RunFigures& r, Metric m) {
  const Figure& f = figure(m);
  double v = base_value(r, f);
  return f.unit == Unit::kBytes ? v / (1024.0 * 1024.0) : v;  // seconds, counts as they are
}

MetricInfo info_of(Metric m) {
  const Figure& f = figure(m);
  return {f.key, f.heading, f.decimals};
}

}  // namespace account
