/// `account report --backtraces`: the large-allocation groups of every
/// process, per operation, symbolized at report time.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "backtrace_record.h"
#include "backtrace_symbolize.h"
#include "sinks.h"

namespace account {

/// Function and file:line of (module path, file address).
using SymbolTable = std::map<std::pair<std::string, uint64_t>, SymbolizedFrame>;

/// The address to look up for a frame: a return address minus one, so the
/// call (not the next line) is named.
uint64_t lookup_address(const LoadedModule& module, uint64_t ip);

/// How every view names a frame: the function ("??" when unknown), the
/// module and offset ("git+0x1a2b3"), and file:line when known. A frame in no
/// module has an empty module and its address in `module_offset` ("0x7f...").
struct FrameName {
  std::string function, module_offset, location;
  bool in_module = false;
};
FrameName frame_name(const ProcessBacktraces& p, uint64_t ip, const SymbolTable& symbols);
/// A frame in one word, as the icicles and folded stacks show it: the
/// function where account could name it, else module+offset (or the address).
std::string frame_label(const ProcessBacktraces& p, uint64_t ip, const SymbolTable& symbols);

/// Resolves every frame of `processes`: one symbolizer call per module.
SymbolTable symbolize(const std::vector<ProcessBacktraces>& processes, Symbolizer& symbolizer);

/// What the stacks are shown for: every captured allocation, the blocks
/// still live at each process's end (--leaks), or the temporaries
/// (--temporary); the last two need records made with ACCOUNT_BACKTRACE_LEAKS.
enum class StackView { kAllocations, kLeaks, kTemporary };

/// A group's (or the other allocations') blocks and requested bytes under
/// --leaks (live at the end; 0 where not known) or --temporary.
std::pair<uint64_t, uint64_t> view_figures(const LeakFigures& l, StackView view);

/// The text report: per (test, operation), per process, the groups largest
/// first (count, MiB, largest request; or live blocks, or temporaries), then
/// one line a frame: `function (module+0xoffset) file:line`.
std::string render_backtraces(const std::vector<ProcessBacktraces>& processes,
                              const SymbolTable& symbols, StackView view = StackView::kAllocations);

/// Reads `files` ("-": standard input), symbolizes and renders. Exit status as
/// run_report: 0, 2 when lines were skipped, 1 when an input cannot be read.
int run_backtrace_report(const std::vector<std::string>& files, bool strict, Symbolizer& symbolizer,
                         std::string* out, const MessageSink& err,
                         StackView view = StackView::kAllocations);

}  // namespace account
