// The report's figures as OpenMetrics text: one gauge family per column of
// `account report --by host`'s table (the medians over a host's runs, from the
// same aggregation), in base units (seconds, bytes), labelled with test,
// operation and host (empty for records without one: Prometheus reads an empty
// label as no label). The runs counted are the report's (counted_runs: failed
// runs left out); an operation none of whose runs counted has no figures, only
// its runs (0) and failed runs.
#include <fmt/format.h>

#include "by_host.h"
#include "exporter.h"
#include "metric.h"

namespace account {

namespace {

struct Family {
  const char* name;  ///< ends with the unit, as OpenMetrics asks
  const char* unit;  ///< "" for a plain count
  const char* help;
  double (*value)(const RunFigures&, size_t runs, size_t failed);
  bool figure = true;  ///< a median: absent where no run counted
  /// The figure it is (metric.h): absent where nobody counted it (unknown, not 0).
  std::optional<Metric> metric = std::nullopt;
};

// The CSV columns of `account report`, in that order.
const Family kFamilies[] = {
    {"account_cpu_seconds", "seconds", "CPU time (user + system) summed over the processes",
     [](const RunFigures& f, size_t, size_t) { return f.cpu_s; }},
    {"account_size_bytes", "bytes",
     "Peak virtual size: the larger of the tree's concurrent peak and the largest process's",
     [](const RunFigures& f, size_t, size_t) { return double(f.size_bytes); }},
    {"account_resident_bytes", "bytes",
     "Peak resident size: the larger of the tree's concurrent peak and the largest process's",
     [](const RunFigures& f, size_t, size_t) { return double(f.resident_bytes); }},
    {"account_copied_bytes", "bytes", "Bytes copied by memcpy, memmove and friends",
     [](const RunFigures& f, size_t, size_t) { return double(f.copied_bytes); }, true,
     Metric::kCopied},
    {"account_malloc_bytes", "bytes", "Bytes requested from malloc and friends",
     [](const RunFigures& f, size_t, size_t) { return double(f.malloc_bytes); }, true,
     Metric::kMalloc},
    {"account_runs", "", "Runs of the operation the figures are the median of",
     [](const RunFigures&, size_t runs, size_t) { return double(runs); }, false},
    {"account_wall_seconds", "seconds", "Wall time of the command",
     [](const RunFigures& f, size_t, size_t) { return f.wall_s; }},
    {"account_processes", "", "Process records of a run",
     [](const RunFigures& f, size_t, size_t) { return double(f.processes); }},
    {"account_failed_runs", "",
     "Runs that failed (exit status not 0, a signal not their stop signal, --timeout, "
     "interrupted), left out of the figures",
     [](const RunFigures&, size_t, size_t failed) { return double(failed); }, false},
};

// Label values escape backslash, double quote and newline.
std::string escaped(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

class OpenMetricsExporter : public Exporter {
 public:
  bool reads_backtraces() const override { return false; }

  std::string write(const ExportInput& input) const override {
    std::vector<HostOperation> series = operations_by_host(input.ops);
    std::vector<RunFigures> medians;
    std::vector<size_t> counted, failed;
    for (const HostOperation& h : series) {
      std::vector<RunFigures> runs = counted_runs(h.operation, /*include_failed=*/false);
      medians.push_back(median_of_runs(runs));
      counted.push_back(runs.size());
      failed.push_back(failed_runs(h.operation));
    }
    std::string out;
    for (const Family& f : kFamilies) {
      out += fmt::format("# TYPE {} gauge\n", f.name);
      if (*f.unit) out += fmt::format("# UNIT {} {}\n", f.name, f.unit);
      out += fmt::format("# HELP {} {} (account report; the median over runs).\n", f.name, f.help);
      for (size_t i = 0; i < series.size(); ++i) {
        const Operation& o = series[i].operation;
        if (f.figure && counted[i] == 0) continue;
        if (f.metric && !metric_counted(medians[i], *f.metric)) continue;
        out += fmt::format("{}{{test=\"{}\",operation=\"{}\",host=\"{}\"}} {}\n", f.name,
                           escaped(o.test), escaped(o.op), escaped(series[i].host),
                           f.value(medians[i], counted[i], failed[i]));
      }
    }
    out += "# EOF\n";
    return out;
  }
};

}  // namespace

std::unique_ptr<Exporter> make_openmetrics_exporter() {
  return std::make_unique<OpenMetricsExporter>();
}

}  // namespace account
