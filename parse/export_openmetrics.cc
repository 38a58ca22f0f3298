// The report's figures as OpenMetrics text: one gauge family per column of
// `account report`'s table (the medians over runs, from the same aggregation),
// in base units (seconds, bytes), labelled with test and operation.
#include <fmt/format.h>

#include "exporter.h"

namespace account {

namespace {

struct Family {
  const char* name;  ///< ends with the unit, as OpenMetrics asks
  const char* unit;  ///< "" for a plain count
  const char* help;
  double (*value)(const RunFigures&, size_t runs);
};

// The CSV columns of `account report`, in that order.
const Family kFamilies[] = {
    {"account_cpu_seconds", "seconds", "CPU time (user + system) summed over the processes",
     [](const RunFigures& f, size_t) { return f.cpu_s; }},
    {"account_size_bytes", "bytes",
     "Peak virtual size: the larger of the tree's concurrent peak and the largest process's",
     [](const RunFigures& f, size_t) { return double(f.size_bytes); }},
    {"account_resident_bytes", "bytes",
     "Peak resident size: the larger of the tree's concurrent peak and the largest process's",
     [](const RunFigures& f, size_t) { return double(f.resident_bytes); }},
    {"account_copied_bytes", "bytes", "Bytes copied by memcpy, memmove and friends",
     [](const RunFigures& f, size_t) { return double(f.copied_bytes); }},
    {"account_malloc_bytes", "bytes", "Bytes requested from malloc and friends",
     [](const RunFigures& f, size_t) { return double(f.malloc_bytes); }},
    {"account_runs", "", "Runs of the operation the figures are the median of",
     [](const RunFigures&, size_t runs) { return double(runs); }},
    {"account_wall_seconds", "seconds", "Wall time of the command",
     [](const RunFigures& f, size_t) { return f.wall_s; }},
    {"account_processes", "", "Process records of a run",
     [](const RunFigures& f, size_t) { return double(f.processes); }},
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
    std::vector<RunFigures> medians;
    for (const Operation& o : input.ops) medians.push_back(median_of_runs(o.runs));
    std::string out;
    for (const Family& f : kFamilies) {
      out += fmt::format("# TYPE {} gauge\n", f.name);
      if (*f.unit) out += fmt::format("# UNIT {} {}\n", f.name, f.unit);
      out += fmt::format("# HELP {} {} (account report; the median over runs).\n", f.name, f.help);
      // No host label yet: records do not carry the host (issue 15, part 3).
      for (size_t i = 0; i < input.ops.size(); ++i)
        out += fmt::format("{}{{test=\"{}\",operation=\"{}\"}} {}\n", f.name,
                           escaped(input.ops[i].test), escaped(input.ops[i].op),
                           f.value(medians[i], input.ops[i].runs.size()));
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
