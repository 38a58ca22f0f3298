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
#include "timeline_spool.h"

namespace account {

struct ExportInput {
  std::vector<Operation> ops;  ///< as account report aggregates them, process rows kept
  /// The records' timeline points, when the format spools them (spools_timelines).
  const TimelineSpool* spool = nullptr;
  std::vector<ProcessBacktraces> backtraces;  ///< record order; only when the format reads them
  SymbolTable symbols;                        ///< names of the backtraces' frames
};

class Exporter {
 public:
  virtual ~Exporter() = default;
  /// Whether the format needs the backtraces (read and symbolized only then).
  virtual bool reads_backtraces() const = 0;
  /// Whether the records' timelines go to input.spool while reading (formats
  /// that draw them: their points would not fit in memory all at once).
  virtual bool spools_timelines() const { return false; }
  virtual std::string write(const ExportInput& input) const = 0;
  /// The export in pieces, as it is made (formats whose output can be large).
  virtual void write_to(const ExportInput& input, const ByteSink& out) const { out(write(input)); }
};

std::unique_ptr<Exporter> make_chrome_trace_exporter();
std::unique_ptr<Exporter> make_pprof_exporter();
std::unique_ptr<Exporter> make_folded_exporter();
std::unique_ptr<Exporter> make_openmetrics_exporter();

}  // namespace account
