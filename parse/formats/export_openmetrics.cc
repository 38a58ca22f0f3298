// The report's figures as OpenMetrics text: one gauge family per column of
// `account report --by host`'s table (the medians over a host's runs, from the
// same aggregation), in base units (seconds, bytes), labelled with test,
// operation and host (empty for records without one: Prometheus reads an empty
// label as no label). The runs counted are the report's (counted_runs: failed
// runs left out); an operation none of whose runs counted has no figures, only
// its runs (0) and failed runs.
#include <fmt/format.h>

#include "by_host.h"
#include "figures.h"
#include "formats/exporter.h"
#include "metric.h"
#include "run_end.h"

namespace account {

namespace {

struct Family {
  std::string name;  ///< ends with the unit, as OpenMetrics asks
  const char* unit;  ///< "" for a plain count
  std::string help;
  double (*value)(const RunFigures&, size_t runs, size_t failed) = nullptr;
  bool median = true;  ///< a median: absent where no run counted
  /// The figure it is (figures.h): a median, absent where no run counted or
  /// nobody counted it (unknown, not 0).
  const Figure* figure = nullptr;
};

Family family_of(const Figure& f) {
  std::string help = f.openmetrics_help;
  if (f.summed == Summed::kPeak) help += std::string(": ") + kPeakRuleText;
  const char* unit = f.unit == Unit::kSeconds ? "seconds" : f.unit == Unit::kBytes ? "bytes" : "";
  return {f.openmetrics, unit, help, nullptr, true, &f};
}

// The CSV columns of `account report`, in that order: the figures of the
// registry's default columns, runs, the figures after Runs, processes, failed runs.
std::vector<Family> families() {
  std::vector<Family> out;
  std::vector<const Figure*> figures = exported_figures();
  for (const Figure* f : figures)
    if (f->column.heading2) out.push_back(family_of(*f));
  out.push_back({"account_runs", "", "Runs of the operation the figures are the median of",
                 [](const RunFigures&, size_t runs, size_t) { return double(runs); }, false});
  for (const Figure* f : figures)
    if (!f->column.heading2) out.push_back(family_of(*f));
  out.push_back({"account_processes", "", "Process records of a run",
                 [](const RunFigures& f, size_t, size_t) { return double(f.processes); }});
  out.push_back({"account_failed_runs", "",
                 std::string("Runs that failed (") + kFailedRunsAre + "), left out of the figures",
                 [](const RunFigures&, size_t, size_t failed) { return double(failed); }, false});
  return out;
}

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

class OpenMetricsFormat : public OutputFormat {
 public:
  void write(FormatInput input, const ByteSink& out) const override { out(text(input)); }

 private:
  std::string text(const FormatInput& input) const {
    std::vector<HostOperation> series = operations_by_host(export_ops(input));
    std::vector<RunFigures> medians;
    std::vector<size_t> counted, failed;
    for (const HostOperation& h : series) {
      std::vector<RunFigures> runs = counted_runs(h.operation, /*include_failed=*/false);
      medians.push_back(median_of_runs(runs));
      counted.push_back(runs.size());
      failed.push_back(failed_runs(h.operation));
    }
    std::string out;
    for (const Family& f : families()) {
      out += fmt::format("# TYPE {} gauge\n", f.name);
      if (*f.unit) out += fmt::format("# UNIT {} {}\n", f.name, f.unit);
      out += fmt::format("# HELP {} {} (account report; the median over runs).\n", f.name, f.help);
      for (size_t i = 0; i < series.size(); ++i) {
        const Operation& o = series[i].operation;
        if (f.median && counted[i] == 0) continue;
        if (f.figure && !metric_counted(medians[i], f.figure->metric)) continue;
        double value = f.figure ? base_value(medians[i], *f.figure)
                                : f.value(medians[i], counted[i], failed[i]);
        out += fmt::format("{}{{test=\"{}\",operation=\"{}\",host=\"{}\"}} {}\n", f.name,
                           escaped(o.test), escaped(o.op), escaped(series[i].host), value);
      }
    }
    out += "# EOF\n";
    return out;
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_openmetrics_format() {
  return std::make_unique<OpenMetricsFormat>();
}

}  // namespace account
