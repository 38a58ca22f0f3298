#include "metric.h"

#include <fmt/format.h>

#include <algorithm>

namespace account {

namespace {

constexpr Metric kAll[] = {Metric::kWall, Metric::kCpu,  Metric::kSize,   Metric::kResident,
                           Metric::kAnon, Metric::kHeap, Metric::kCopied, Metric::kMalloc};

double mib(uint64_t bytes) {
  return double(bytes) / (1024.0 * 1024.0);
}

}  // namespace

const char* metric_name(Metric m) {
  switch (m) {
    case Metric::kWall:
      return "wall";
    case Metric::kCpu:
      return "cpu";
    case Metric::kSize:
      return "size";
    case Metric::kResident:
      return "resident";
    case Metric::kAnon:
      return "anon";
    case Metric::kHeap:
      return "heap";
    case Metric::kCopied:
      return "copied";
    case Metric::kMalloc:
      return "malloc";
  }
  return "";
}

std::optional<Metric> parse_metric(std::string_view name) {
  for (Metric m : kAll)
    if (name == metric_name(m)) return m;
  return std::nullopt;
}

std::string unknown_metric(std::string_view name) {
  std::string known;
  for (Metric m : kAll) known += fmt::format("{}{}", known.empty() ? "" : ", ", metric_name(m));
  return fmt::format("unknown metric '{}' (known: {})", name, known);
}

bool metric_counted(const RunFigures& r, Metric m) {
  switch (m) {
    case Metric::kAnon:
      return r.anon_bytes > 0;
    case Metric::kHeap:
    case Metric::kCopied:
    case Metric::kMalloc:
      return r.shim_processes > 0;
    default:
      return true;
  }
}

bool metric_partly_counted(const RunFigures& r, Metric m) {
  return metric_counted(r, m) && r.processes_without_shim > 0 &&
         (m == Metric::kHeap || m == Metric::kCopied || m == Metric::kMalloc);
}

std::string without_shim_note(uint64_t without_shim, uint64_t all) {
  all = std::max(all, without_shim);
  return fmt::format("{} of {} process{} ran without the shim", without_shim, all,
                     all == 1 ? "" : "es");
}

std::string without_shim_note(const RunFigures& r) {
  return without_shim_note(r.processes_without_shim, r.shim_processes + r.processes_without_shim);
}

double metric_of(const RunFigures& r, Metric m) {
  switch (m) {
    case Metric::kWall:
      return r.wall_s;
    case Metric::kCpu:
      return r.cpu_s;
    case Metric::kSize:
      return mib(r.size_bytes);
    case Metric::kResident:
      return mib(r.resident_bytes);
    case Metric::kAnon:
      return mib(r.anon_bytes);
    case Metric::kHeap:
      return mib(r.heap_bytes);
    case Metric::kCopied:
      return mib(r.copied_bytes);
    case Metric::kMalloc:
      return mib(r.malloc_bytes);
  }
  return 0;
}

MetricInfo info_of(Metric m) {
  switch (m) {
    case Metric::kWall:
      return {"wall_s", "Wall time (s)", 3};
    case Metric::kCpu:
      return {"cpu_s", "CPU (s)", 3};
    case Metric::kSize:
      return {"size_mib", "Maximum size (MiB)", 2};
    case Metric::kResident:
      return {"resident_mib", "Maximum resident (MiB)", 2};
    case Metric::kAnon:
      return {"anon_mib", "Maximum anonymous resident (MiB)", 2};
    case Metric::kHeap:
      return {"heap_mib", "Largest heap peak (MiB)", 2};
    case Metric::kCopied:
      return {"copied_mib", "Copied (MiB)", 1};
    case Metric::kMalloc:
      return {"malloc_mib", "Malloc (MiB)", 1};
  }
  return {"", "", 0};
}

}  // namespace account
