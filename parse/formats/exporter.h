/// The formats of `account export`, each an OutputFormat (format.h) in a
/// file of its own, and what they read of their input: the aggregation of
/// every file as one input, with the large-allocation backtraces and their
/// symbols where the registry says the format reads them.
#pragma once

#include <memory>
#include <vector>

#include "formats/format.h"

namespace account {

std::unique_ptr<OutputFormat> make_chrome_trace_format();
std::unique_ptr<OutputFormat> make_pprof_format();
std::unique_ptr<OutputFormat> make_folded_format();
/// Folded stacks of the blocks live at each process's end, and of temporaries
/// (records made with ACCOUNT_BACKTRACE_LEAKS): bytes requested a stack.
std::unique_ptr<OutputFormat> make_folded_leaks_format();
std::unique_ptr<OutputFormat> make_folded_temporary_format();
std::unique_ptr<OutputFormat> make_openmetrics_format();

/// The operations an export is made of (the input's only aggregation).
const std::vector<Operation>& export_ops(const FormatInput& input);
/// Its backtraces in record order, and their symbols (empty when not read).
const std::vector<ProcessBacktraces>& export_backtraces(const FormatInput& input);
const SymbolTable& export_symbols(const FormatInput& input);

}  // namespace account
