#include "backtrace_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "by_host.h"
#include "reader.h"
#include "saturating.h"

namespace account {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string size_text(uint64_t bytes) {
  if (bytes >= 1024 * 1024) return fmt::format("{:.2f} MiB", double(bytes) / kMiB);
  if (bytes >= 1024) return fmt::format("{:.2f} KiB", double(bytes) / 1024.0);
  return fmt::format("{} B", bytes);
}

// Exact bytes, and the rounded size beside them from 1 KiB: "6000 B (5.86 KiB)".
std::string exact_size_text(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  return fmt::format("{} B ({})", bytes, size_text(bytes));
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

std::string command_line(const ProcessBacktraces& p) {
  std::string text;
  for (const std::string& a : p.argv) {
    if (!text.empty()) text += ' ';
    text += a;
  }
  if (text.empty()) text = p.exe;
  // One line: control characters (a script's newlines) become spaces.
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  if (text.size() > 100) text = text.substr(0, 97) + "...";
  return text;
}

}  // namespace

FrameName frame_name(const ProcessBacktraces& p, uint64_t ip, const SymbolTable& symbols) {
  FrameName n;
  const LoadedModule* m = p.module_of(ip);
  if (!m) {
    n.function = "??";
    n.module_offset = fmt::format("{:#x}", ip);
    return n;
  }
  n.in_module = true;
  const SymbolizedFrame* f = nullptr;
  if (auto it = symbols.find({m->path, lookup_address(*m, ip)}); it != symbols.end())
    f = &it->second;
  n.function = f && !f->function.empty() ? f->function : "??";
  n.module_offset = fmt::format("{}+{:#x}", basename_of(m->path), ip - m->base);
  if (f) n.location = f->location;
  return n;
}

namespace {

void render_frames(const ProcessBacktraces& p, const AllocationGroup& g, const SymbolTable& symbols,
                   std::string* out) {
  for (size_t i = 0; i < g.frames.size(); ++i) {
    FrameName n = frame_name(p, g.frames[i], symbols);
    std::string line = fmt::format("      #{:<2} {} ({})", i, n.function, n.module_offset);
    if (!n.location.empty()) line += " " + n.location;
    *out += line + "\n";
  }
}

// `name_host`: the records come from more than one machine, whose pids may collide.
void render_process(const ProcessBacktraces& p, const SymbolTable& symbols, bool name_host,
                    std::string* out) {
  uint64_t count = 0, bytes = 0;
  for (const AllocationGroup& g : p.groups)
    add_saturating(count, g.count), add_saturating(bytes, g.bytes);
  if (p.other) add_saturating(count, p.other->count), add_saturating(bytes, p.other->bytes);
  std::string where = name_host ? fmt::format(" on {}", host_shown(p.host)) : "";
  *out += fmt::format("  pid {}{}: {}\n", p.pid, where, command_line(p));
  std::string stacks =
      plural(p.groups.size() + (p.other ? p.other->groups : 0), "call stack", "call stacks");
  if (p.sample_bytes)
    *out += fmt::format(
        "  about {}, {:.2f} MiB in {}: estimated from one sample about every {} allocated\n",
        plural(count, "allocation", "allocations"), double(bytes) / kMiB, stacks,
        size_text(p.sample_bytes));
  else
    *out += fmt::format("  {} of at least {}, {:.2f} MiB in {}\n",
                        plural(count, "allocation", "allocations"), size_text(p.threshold),
                        double(bytes) / kMiB, stacks);
  for (const AllocationGroup& g : p.groups) {
    *out += fmt::format("\n    {}, {:.2f} MiB, largest {}\n",
                        plural(g.count, "allocation", "allocations"), double(g.bytes) / kMiB,
                        size_text(g.largest));
    render_frames(p, g, symbols, out);
  }
  if (p.other)
    *out += fmt::format("\n    other: {} in {} not kept in the record, {:.2f} MiB, largest {}\n",
                        plural(p.other->count, "allocation", "allocations"),
                        plural(p.other->groups, "call stack", "call stacks"),
                        double(p.other->bytes) / kMiB, size_text(p.other->largest));
}

bool has_allocations(const ProcessBacktraces& p) {
  return !p.groups.empty() || (p.other && p.other->count > 0);
}

// A process under --leaks or --temporary: its groups with blocks in the view,
// most bytes first.
void render_leak_view(const ProcessBacktraces& p, const SymbolTable& symbols, bool name_host,
                      StackView view, std::string* out) {
  bool leaks = view == StackView::kLeaks;
  std::string where = name_host ? fmt::format(" on {}", host_shown(p.host)) : "";
  *out += fmt::format("  pid {}{}: {}\n", p.pid, where, command_line(p));
  if (!p.leaks) {
    *out += "  not followed: run with ACCOUNT_BACKTRACE_LEAKS=1 (account run --leaks)\n";
    return;
  }
  bool known = !leaks || std::any_of(p.groups.begin(), p.groups.end(), [](const auto& g) {
    return g.leaks.live_count.has_value();
  }) || (p.other && p.other->leaks.live_count);
  if (!known) {
    *out += "  its image exec'd: nothing of its heap lived on\n";
    return;
  }
  std::vector<const AllocationGroup*> shown;
  uint64_t count = 0, bytes = 0;
  for (const AllocationGroup& g : p.groups) {
    auto [n, b] = view_figures(g.leaks, view);
    if (n == 0) continue;
    shown.push_back(&g);
    add_saturating(count, n), add_saturating(bytes, b);
  }
  auto [other_n, other_b] = p.other ? view_figures(p.other->leaks, view) : std::pair{0ul, 0ul};
  add_saturating(count, other_n), add_saturating(bytes, other_b);
  std::stable_sort(shown.begin(), shown.end(), [&](const auto* a, const auto* b) {
    return view_figures(a->leaks, view).second > view_figures(b->leaks, view).second;
  });
  const char* what = leaks ? "live at the end" : "freed as temporaries";
  *out += fmt::format("  {} {}, {} requested, in {} (allocations of at least {})\n",
                      plural(count, "block", "blocks"), what, exact_size_text(bytes),
                      plural(shown.size(), "call stack", "call stacks"), size_text(p.threshold));
  if (p.untracked_blocks > 0)
    *out += fmt::format("  {} not followed (the table was full): not in these figures\n",
                        plural(p.untracked_blocks, "block", "blocks"));
  for (const AllocationGroup* g : shown) {
    auto [n, b] = view_figures(g->leaks, view);
    *out += fmt::format("\n    {} {}, {}, of {}\n", plural(n, "block", "blocks"), what,
                        exact_size_text(b), plural(g->count, "allocation", "allocations"));
    render_frames(p, *g, symbols, out);
  }
  if (other_n > 0)
    *out += fmt::format("\n    other: {} {} from stacks not kept in the record, {}\n",
                        plural(other_n, "block", "blocks"), what, size_text(other_b));
}

}  // namespace

std::pair<uint64_t, uint64_t> view_figures(const LeakFigures& l, StackView view) {
  if (view == StackView::kLeaks) return {l.live_count.value_or(0), l.live_bytes.value_or(0)};
  return {l.temporary_count, l.temporary_bytes};
}

std::string frame_label(const ProcessBacktraces& p, uint64_t ip, const SymbolTable& symbols) {
  FrameName n = frame_name(p, ip, symbols);
  return n.function != "??" ? n.function : n.module_offset;
}

uint64_t lookup_address(const LoadedModule& module, uint64_t ip) {
  uint64_t address = ip - module.base;
  return address > 0 ? address - 1 : 0;
}

SymbolTable symbolize(const std::vector<ProcessBacktraces>& processes, Symbolizer& symbolizer) {
  std::map<std::string, std::set<uint64_t>> wanted;
  for (const ProcessBacktraces& p : processes)
    for (const AllocationGroup& g : p.groups)
      for (uint64_t ip : g.frames)
        if (const LoadedModule* m = p.module_of(ip)) wanted[m->path].insert(lookup_address(*m, ip));
  SymbolTable table;
  for (const auto& [path, set] : wanted) {
    std::vector<uint64_t> addresses(set.begin(), set.end());
    std::vector<SymbolizedFrame> frames = symbolizer.resolve(path, addresses);
    for (size_t i = 0; i < addresses.size() && i < frames.size(); ++i)
      table[{path, addresses[i]}] = std::move(frames[i]);
  }
  return table;
}

std::string render_backtraces(const std::vector<ProcessBacktraces>& processes,
                              const SymbolTable& symbols, StackView view) {
  if (processes.empty())
    return "No backtraces in these records: run with ACCOUNT_BACKTRACE_MIN=SIZE "
           "(account run --backtrace-min SIZE).\n";
  // Operations in the order they first appear; processes in record order.
  // Processes without a large allocation are only counted.
  std::vector<std::pair<std::string, std::string>> order;
  bool many_hosts =
      std::any_of(processes.begin(), processes.end(),
                  [&](const ProcessBacktraces& p) { return p.host != processes.front().host; });
  for (const ProcessBacktraces& p : processes)
    if (std::find(order.begin(), order.end(), std::make_pair(p.test, p.op)) == order.end())
      order.emplace_back(p.test, p.op);
  std::string out;
  for (const auto& [test, op] : order) {
    if (!out.empty()) out += '\n';
    out += fmt::format("Test {}, operation {}\n", test.empty() ? "(none)" : test,
                       op.empty() ? "(none)" : op);
    size_t quiet = 0;
    for (const ProcessBacktraces& p : processes) {
      if (p.test != test || p.op != op) continue;
      if (!has_allocations(p)) {
        ++quiet;
        continue;
      }
      out += '\n';
      if (view == StackView::kAllocations)
        render_process(p, symbols, many_hosts, &out);
      else
        render_leak_view(p, symbols, many_hosts, view, &out);
    }
    if (quiet > 0)
      out += fmt::format("\n  {} traced made no allocation over the threshold\n",
                         plural(quiet, "other process", "other processes"));
  }
  return out;
}

int run_backtrace_report(const std::vector<std::string>& files_in, bool strict,
                         Symbolizer& symbolizer, std::string* out, const MessageSink& err,
                         StackView view) {
  std::vector<std::string> files = files_in;
  if (files.empty()) files.push_back("-");
  std::vector<ProcessBacktraces> processes;
  int status = 0;
  for (const std::string& path : files) {
    std::string error;
    std::unique_ptr<LineReader> reader = LineReader::open(path, &error);
    if (!reader) {
      err(fmt::format("account: cannot read {}: {}", path, error));
      return 1;
    }
    std::string_view line;
    bool complete;
    while (reader->next(&line, &complete)) {
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      std::string reason;
      std::optional<ProcessBacktraces> p = parse_backtraces(line, &reason);
      if (p) {
        processes.push_back(std::move(*p));
      } else if (!reason.empty()) {
        BadLine bad{reader->name(), reader->line_number(), reason};
        err(bad.message());
        if (strict) return 1;
        status = 2;
      }
    }
    if (!reader->error().empty()) {
      err(fmt::format("account: cannot read {}: {}", reader->name(), reader->error()));
      return 1;
    }
  }
  *out = render_backtraces(processes, symbolize(processes, symbolizer), view);
  return status;
}

}  // namespace account
