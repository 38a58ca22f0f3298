/// The interface every `account export` format implements, and what it is
/// given: the runs of `account report`'s aggregation (process rows kept, with
/// their records) and the large-allocation backtraces with their symbols.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "aggregate.h"
#include "backtrace_record.h"
#include "backtrace_report.h"
#include "export.h"

namespace account {

struct ExportInput {
  std::vector<Operation> ops;  ///< as account report aggregates them, process rows kept
  std::vector<ProcessBacktraces> backtraces;  ///< record order; only when the format reads them
  SymbolTable symbols;                        ///< names of the backtraces' frames
};

class Exporter {
 public:
  virtual ~Exporter() = default;
  /// Whether the format needs the backtraces (read and symbolized only then).
  virtual bool reads_backtraces() const = 0;
  virtual std::string write(const ExportInput& input) const = 0;
};

std::unique_ptr<Exporter> make_chrome_trace_exporter();
std::unique_ptr<Exporter> make_pprof_exporter();
std::unique_ptr<Exporter> make_folded_exporter();
std::unique_ptr<Exporter> make_openmetrics_exporter();

}  // namespace account
