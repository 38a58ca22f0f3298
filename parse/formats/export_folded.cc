// Folded stacks (Brendan Gregg's collapsed format) of the large allocations:
// one line a distinct stack, `frame;frame;...;frame BYTES`, root first, for
// flamegraph.pl, inferno and speedscope.
#include <fmt/format.h>

#include <map>

#include "formats/exporter.h"
#include "saturating.h"

namespace account {

namespace {

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// ';' separates frames and the last space the value: neither may end a frame
// early. Spaces inside a frame are fine (the value is after the last one).
std::string clean(std::string frame) {
  for (char& c : frame)
    if (c == ';')
      c = ':';
    else if (static_cast<unsigned char>(c) < 0x20)
      c = ' ';
  return frame;
}

// The function where account could name it, else module+offset (or the bare
// address of a frame in no module).
std::string frame_label(const ProcessBacktraces& p, uint64_t ip, const SymbolTable& symbols) {
  FrameName n = frame_name(p, ip, symbols);
  return clean(n.function != "??" ? n.function : n.module_offset);
}

// The root frames: the host when the record names one (two machines' stacks
// stay apart), "TEST/OP" when the records carry labels, then the program.
std::string root_of(const ProcessBacktraces& p) {
  std::string program = basename_of(p.exe.empty() && !p.argv.empty() ? p.argv[0] : p.exe);
  if (program.empty()) program = fmt::format("pid {}", p.pid);
  std::string root = p.host.empty() ? "" : clean(p.host) + ";";
  if (p.test.empty() && p.op.empty()) return root + clean(program);
  return root + clean(fmt::format("{}/{}", p.test, p.op)) + ";" + clean(program);
}

// The value of a group in the view: its bytes, its bytes live at the end,
// or its temporaries' bytes (requests).
uint64_t value_of(const AllocationGroup& g, StackView view) {
  if (view == StackView::kLeaks) return g.leaks.live_bytes.value_or(0);
  if (view == StackView::kTemporary) return g.leaks.temporary_bytes;
  return g.bytes;
}
uint64_t value_of(const OtherAllocations& o, StackView view) {
  if (view == StackView::kLeaks) return o.leaks.live_bytes.value_or(0);
  if (view == StackView::kTemporary) return o.leaks.temporary_bytes;
  return o.bytes;
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
        std::string stack = root;
        for (auto ip = g.frames.rbegin(); ip != g.frames.rend(); ++ip)
          stack += ";" + frame_label(p, *ip, export_symbols(input));
        if (uint64_t v = value_of(g, view_)) add_saturating(bytes_of_stack[stack], v);
      }
      // Allocations the record kept no stack for still count in the totals.
      if (p.other && value_of(*p.other, view_) > 0)
        add_saturating(bytes_of_stack[root + ";[stacks not kept in the record]"],
                       value_of(*p.other, view_));
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
