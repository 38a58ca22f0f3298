#include "chart_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace account {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string program_of(const ProcessRecord& r) {
  const std::string& path = r.argv.empty() ? r.exe : r.argv[0];
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string command_line(const ProcessRecord& r) {
  std::string text;
  for (const std::string& a : r.argv) text += (text.empty() ? "" : " ") + a;
  if (text.empty()) text = r.exe;
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  if (text.size() > 200) text = text.substr(0, 197) + "...";
  return text;
}

std::string ending_text(const ProcessRecord& r) {
  if (r.end == "exit") return fmt::format("exit {}", r.exit_code.value_or(0));
  if (r.end == "signal" || (r.end == "killed" && r.signal))
    return fmt::format("{} (signal {})", r.end, r.signal.value_or(0));
  return r.end;
}

std::vector<const ProcessRecord*> records_of(const RunFigures& run) {
  std::vector<const ProcessRecord*> out;
  for (const ProcessRow& row : run.process_rows)
    if (row.record) out.push_back(row.record.get());
  return out;
}

uint64_t first_start(const std::vector<const ProcessRecord*>& records) {
  uint64_t t = UINT64_MAX;
  for (const ProcessRecord* r : records) t = std::min(t, r->start_ns);
  return t == UINT64_MAX ? 0 : t;
}

// The value of a process's series at time t (seconds since the run's start):
// its latest sample at or before t; nullopt before its first or after its end.
std::optional<double> value_at(const ProcessRecord& r, const std::vector<uint64_t>& column,
                               double origin_s, double t) {
  const Timeline& tl = *r.timeline;
  if (column.empty()) return std::nullopt;
  double start = double(r.start_ns) / 1e9 - origin_s;
  double end = double(r.end_ns) / 1e9 - origin_s;
  if (t < start + tl.t_ms.front() / 1e3 || t > end) return std::nullopt;
  auto it = std::upper_bound(tl.t_ms.begin(), tl.t_ms.end(), (t - start) * 1e3);
  size_t i = size_t(it - tl.t_ms.begin());
  return double(column[i ? i - 1 : 0]);
}

}  // namespace

std::optional<size_t> drawn_run(const Operation& op) {
  if (op.runs.empty()) return std::nullopt;
  std::vector<size_t> order(op.runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return op.runs[a].wall_s < op.runs[b].wall_s; });
  return order[(order.size() - 1) / 2];
}

MemoryChartData memory_chart_of_run(const RunFigures& run, size_t largest) {
  MemoryChartData d;
  std::vector<const ProcessRecord*> with;
  for (const ProcessRecord* r : records_of(run))
    if (r->timeline && !r->timeline->t_ms.empty()) with.push_back(r);
  if (with.empty()) return d;
  double origin = double(first_start(records_of(run))) / 1e9;
  // Every instant any process was sampled, in seconds since the run's start.
  std::set<double> instants;
  for (const ProcessRecord* r : with)
    for (double ms : r->timeline->t_ms)
      instants.insert(double(r->start_ns) / 1e9 - origin + ms / 1e3);
  MemorySeries rss{"whole tree, resident", {}, true}, size{"whole tree, size", {}, false};
  for (double t : instants) {
    double sum_rss = 0, sum_size = 0;
    for (const ProcessRecord* r : with) {
      sum_rss += value_at(*r, r->timeline->rss_bytes, origin, t).value_or(0);
      sum_size += value_at(*r, r->timeline->size_bytes, origin, t).value_or(0);
    }
    rss.points.push_back({t, sum_rss});
    size.points.push_back({t, sum_size});
  }
  d.series.push_back(std::move(rss));
  if (std::any_of(with.begin(), with.end(),
                  [](auto* r) { return !r->timeline->size_bytes.empty(); }))
    d.series.push_back(std::move(size));
  // The largest processes' own resident curves (only worth drawing when the
  // tree has more than one process).
  if (with.size() > 1) {
    std::vector<const ProcessRecord*> by_peak = with;
    std::stable_sort(by_peak.begin(), by_peak.end(), [](auto* a, auto* b) {
      return a->sampled_rss_peak_bytes > b->sampled_rss_peak_bytes;
    });
    for (size_t i = 0; i < by_peak.size() && i < largest; ++i) {
      const ProcessRecord& r = *by_peak[i];
      if (r.timeline->rss_bytes.empty()) continue;
      MemorySeries s{fmt::format("{} (pid {}), resident", program_of(r), r.pid), {}, false};
      double start = double(r.start_ns) / 1e9 - origin;
      for (size_t k = 0; k < r.timeline->t_ms.size(); ++k)
        s.points.push_back({start + r.timeline->t_ms[k] / 1e3, double(r.timeline->rss_bytes[k])});
      d.series.push_back(std::move(s));
    }
  }
  // The kernel's resident peak of the process with the largest one, when it
  // is above everything sampled: a spike between two samples.
  const ProcessRecord* top = nullptr;
  for (const ProcessRecord* r : records_of(run))
    if (!top || r->rss_peak_bytes > top->rss_peak_bytes) top = r;
  double sampled = 0;
  for (const MemorySeries& s : d.series)
    for (const CurvePoint& p : s.points) sampled = std::max(sampled, p.y);
  if (top && double(top->rss_peak_bytes) > sampled) {
    d.kernel_peak_bytes = double(top->rss_peak_bytes);
    d.kernel_peak_label = fmt::format("kernel resident peak of {} (VmHWM)", program_of(*top));
  }
  return d;
}

std::vector<TimelineRow> timeline_of_run(const RunFigures& run, double* span_s, size_t max_rows) {
  std::vector<const ProcessRecord*> records = records_of(run);
  uint64_t origin = first_start(records);
  uint64_t last = origin;
  for (const ProcessRecord* r : records) last = std::max(last, r->end_ns);
  *span_s = double(last - origin) / 1e9;
  // An exec chain: the images of one pid, in start order, on one row.
  std::map<int64_t, std::vector<const ProcessRecord*>> by_pid;
  for (const ProcessRecord* r : records) by_pid[r->pid].push_back(r);
  std::vector<std::vector<const ProcessRecord*>> chains;
  for (auto& [pid, images] : by_pid) {
    std::stable_sort(images.begin(), images.end(),
                     [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
    chains.push_back(images);
  }
  std::stable_sort(chains.begin(), chains.end(),
                   [](const auto& a, const auto& b) { return a[0]->start_ns < b[0]->start_ns; });
  auto bar_of = [&](const ProcessRecord& r) {
    TimelineBar b;
    b.start_s = double(r.start_ns - std::min(r.start_ns, origin)) / 1e9;
    b.end_s = double(std::max(r.end_ns, r.start_ns) - origin) / 1e9;
    b.label = program_of(r);
    b.end = r.end;
    b.tooltip = fmt::format(
        "{}\npid {}, {}\n{:.3f} s, cpu {:.3f} s, peak resident {:.2f} MiB, size {:.2f} MiB\n"
        "malloc {:.2f} MiB, copied {:.2f} MiB",
        command_line(r), r.pid, ending_text(r), b.end_s - b.start_s, r.cpu_user_s + r.cpu_sys_s,
        double(r.rss_peak_bytes) / kMiB, double(r.vm_peak_bytes) / kMiB,
        double(r.malloc_bytes) / kMiB, double(r.copied_bytes) / kMiB);
    return b;
  };
  std::vector<TimelineRow> rows;
  size_t kept = chains.size() > max_rows ? max_rows - 1 : chains.size();
  for (size_t i = 0; i < kept; ++i) {
    TimelineRow row;
    row.label = fmt::format("{} {}", program_of(*chains[i].back()), chains[i][0]->pid);
    for (const ProcessRecord* r : chains[i]) row.bars.push_back(bar_of(*r));
    rows.push_back(std::move(row));
  }
  // The rest, one row per program, every image of it on that row.
  std::map<std::string, TimelineRow> grouped;
  std::map<std::string, size_t> counts;
  std::vector<std::string> order;
  for (size_t i = kept; i < chains.size(); ++i) {
    std::string name = program_of(*chains[i].back());
    if (!grouped.count(name)) order.push_back(name);
    counts[name] += 1;
    for (const ProcessRecord* r : chains[i]) grouped[name].bars.push_back(bar_of(*r));
  }
  for (const std::string& name : order) {
    TimelineRow& row = grouped[name];
    row.label = fmt::format("{} ×{}", name, counts[name]);
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

void add_stack(IcicleNode* node, const std::vector<std::string>& frames, uint64_t bytes,
               uint64_t calls) {
  node->bytes += bytes;
  node->calls += calls;
  for (const std::string& f : frames) {
    auto it = std::find_if(node->children.begin(), node->children.end(),
                           [&](const IcicleNode& c) { return c.name == f; });
    if (it == node->children.end()) {
      node->children.push_back({f, 0, 0, {}});
      it = node->children.end() - 1;
    }
    node = &*it;
    node->bytes += bytes;
    node->calls += calls;
  }
}

void sort_children(IcicleNode* node) {
  std::stable_sort(node->children.begin(), node->children.end(),
                   [](const IcicleNode& a, const IcicleNode& b) { return a.bytes > b.bytes; });
  for (IcicleNode& c : node->children) sort_children(&c);
}

}  // namespace

IcicleNode icicle_of_operation(const std::vector<ProcessBacktraces>& processes,
                               const std::string& test, const std::string& op,
                               const SymbolTable& symbols) {
  IcicleNode root{"all", 0, 0, {}};
  for (const ProcessBacktraces& p : processes) {
    if (p.test != test || p.op != op) continue;
    for (const AllocationGroup& g : p.groups) {
      // Root first: the outermost frame (main, or the thread's start) on top.
      std::vector<std::string> frames;
      for (auto it = g.frames.rbegin(); it != g.frames.rend(); ++it) {
        FrameName n = frame_name(p, *it, symbols);
        frames.push_back(n.function != "??" ? n.function : n.module_offset);
      }
      add_stack(&root, frames, g.bytes, g.count);
    }
    if (p.other)
      add_stack(&root, {"(call stacks not kept in the record)"}, p.other->bytes, p.other->count);
  }
  sort_children(&root);
  return root;
}

}  // namespace account
