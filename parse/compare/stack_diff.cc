#include "compare/stack_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "stack_path.h"

namespace account {

namespace {

using OpKey = std::pair<std::string, std::string>;

size_t runs_of(const StackSide& side, const OpKey& key) {
  if (!side.operations) return 0;
  for (const Operation& o : *side.operations)
    if (o.test == key.first && o.op == key.second) return o.runs.size();
  return 0;
}

// Bytes by stack path, per operation, summed over the side's processes.
std::map<OpKey, std::map<std::string, double>> bytes_by_stack(const StackSide& side) {
  std::map<OpKey, std::map<std::string, double>> out;
  if (!side.backtraces) return out;
  static const SymbolTable kNone;
  const SymbolTable& symbols = side.symbols ? *side.symbols : kNone;
  for (const ProcessBacktraces& p : *side.backtraces) {
    std::map<std::string, double>& stacks = out[{p.test, p.op}];
    std::string program = program_name(p);
    for (const AllocationGroup& g : p.groups) {
      std::string frames = frames_path(p, g, symbols);
      stacks[frames.empty() ? program : program + ";" + frames] += double(g.bytes);
    }
    if (p.other && p.other->bytes > 0)
      stacks[program + ";" + kUnkeptStacks] += double(p.other->bytes);
  }
  return out;
}

std::string size_text(double bytes) {
  double a = std::fabs(bytes);
  if (a >= 1024 * 1024) return fmt::format("{:.2f} MiB", bytes / (1024.0 * 1024.0));
  if (a >= 1024) return fmt::format("{:.2f} KiB", bytes / 1024.0);
  return fmt::format("{:.0f} B", bytes);
}

}  // namespace

std::vector<OperationStackDiff> stack_diff(const StackSide& before, const StackSide& after) {
  auto a = bytes_by_stack(before), b = bytes_by_stack(after);
  std::map<OpKey, bool> ops;
  for (const auto& [key, _] : a) ops[key] = true;
  for (const auto& [key, _] : b) ops[key] = true;
  std::vector<OperationStackDiff> out;
  for (const auto& [key, _] : ops) {
    OperationStackDiff d;
    d.test = key.first;
    d.op = key.second;
    d.runs_before = runs_of(before, key);
    d.runs_after = runs_of(after, key);
    // Per run: a side with no run of the operation counts its bytes once.
    double per_a = double(std::max<size_t>(d.runs_before, 1));
    double per_b = double(std::max<size_t>(d.runs_after, 1));
    std::map<std::string, StackChange> changes;
    for (const auto& [path, bytes] : a[key]) changes[path].before = bytes / per_a;
    for (const auto& [path, bytes] : b[key]) changes[path].after = bytes / per_b;
    for (auto& [path, c] : changes) {
      c.path = path;
      if (c.after > c.before)
        d.grew.push_back(c);
      else if (c.after < c.before)
        d.shrank.push_back(c);
    }
    auto by_change = [](const StackChange& x, const StackChange& y) {
      return std::fabs(x.after - x.before) > std::fabs(y.after - y.before);
    };
    std::stable_sort(d.grew.begin(), d.grew.end(), by_change);
    std::stable_sort(d.shrank.begin(), d.shrank.end(), by_change);
    out.push_back(std::move(d));
  }
  return out;
}

std::string render_stack_diff(const std::vector<OperationStackDiff>& diffs,
                              const std::string& before, const std::string& after, size_t limit) {
  if (diffs.empty())
    return "No backtraces in these records: run with account run --backtrace-min SIZE.\n";
  std::string out = fmt::format(
      "Allocated bytes a run by call stack, {} against {} (stacks root first; only those that "
      "changed)\n",
      after, before);
  for (const OperationStackDiff& d : diffs) {
    out += fmt::format("\nTest {}, operation {} ({} run{}, {} run{})\n",
                       d.test.empty() ? "(none)" : d.test, d.op.empty() ? "(none)" : d.op,
                       d.runs_before, d.runs_before == 1 ? "" : "s", d.runs_after,
                       d.runs_after == 1 ? "" : "s");
    if (d.grew.empty() && d.shrank.empty()) out += "  no stack changed\n";
    for (const auto* list : {&d.grew, &d.shrank}) {
      if (list->empty()) continue;
      out += list == &d.grew ? "  grew:\n" : "  shrank:\n";
      for (size_t i = 0; i < list->size() && i < limit; ++i) {
        const StackChange& c = (*list)[i];
        std::string change = size_text(c.after - c.before);
        if (c.after > c.before) change = "+" + change;
        out += fmt::format("    {:>12}  {} -> {}  {}\n", change, size_text(c.before),
                           size_text(c.after), c.path);
      }
      if (list->size() > limit) out += fmt::format("    ... {} more\n", list->size() - limit);
    }
  }
  return out;
}

}  // namespace account
