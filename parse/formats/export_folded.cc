// Folded stacks (Brendan Gregg's collapsed format) of the large allocations:
// one line a distinct stack, `frame;frame;...;frame BYTES`, root first, for
// flamegraph.pl, inferno and speedscope.
#include <fmt/format.h>

#include <map>

#include "formats/exporter.h"
#include "saturating.h"
#include "stack_path.h"

namespace account {

namespace {

// The root frames: the host when the record names one (two machines' stacks
// stay apart), "TEST/OP" when the records carry labels, then the program.
std::string root_of(const ProcessBacktraces& p) {
  std::string root = p.host.empty() ? "" : folded_clean(p.host) + ";";
  if (p.test.empty() && p.op.empty()) return root + program_name(p);
  return root + folded_clean(fmt::format("{}/{}", p.test, p.op)) + ";" + program_name(p);
}

// The value of a group in the view: its bytes, or its bytes live at the end
// or freed as temporaries (requests).
template <typename Allocations>
uint64_t value_of(const Allocations& a, StackView view) {
  return view == StackView::kAllocations ? a.bytes : view_figures(a.leaks, view).second;
}

class FoldedFormat : public OutputFormat {
 public:
  explicit FoldedFormat(StackView view) : view_(view) {}
  void write(FormatInput input, const ByteSink& out) const override { out(text(input)); }

 private:
  StackView view_;

  std::string text(const FormatInput& input) const {
    // Equal stacks of several processes (or groups) become one line.
    std::map<std::string, uint64_t> bytes_of_stack;
    for (const ProcessBacktraces& p : export_backtraces(input)) {
      std::string root = root_of(p);
      for (const AllocationGroup& g : p.groups) {
        std::string frames = frames_path(p, g, export_symbols(input));
        std::string stack = frames.empty() ? root : root + ";" + frames;
        if (uint64_t v = value_of(g, view_)) add_saturating(bytes_of_stack[stack], v);
      }
      // Allocations the record kept no stack for still count in the totals.
      if (p.other && value_of(*p.other, view_) > 0)
        add_saturating(bytes_of_stack[root + ";" + kUnkeptStacks], value_of(*p.other, view_));
    }
    std::string out;
    for (const auto& [stack, bytes] : bytes_of_stack) out += fmt::format("{} {}\n", stack, bytes);
    return out;
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_folded_format() {
  return std::make_unique<FoldedFormat>(StackView::kAllocations);
}

std::unique_ptr<OutputFormat> make_folded_leaks_format() {
  return std::make_unique<FoldedFormat>(StackView::kLeaks);
}

std::unique_ptr<OutputFormat> make_folded_temporary_format() {
  return std::make_unique<FoldedFormat>(StackView::kTemporary);
}

}  // namespace account
