#include "formats/chart_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "cell_text.h"
#include "figure_sums.h"
#include "metric.h"
#include "saturating.h"

namespace account {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// A subcommand: a word of lowercase letters and dashes ("upload-pack"), not
// an option, a path or a file name.
bool is_subcommand(const std::string& word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || c == '-';
  }) && word[0] != '-';
}

// How charts name a process: its program's basename, with the subcommand of
// a multi-call program ("git upload-pack", not "git": git runs most of its
// helpers as /usr/lib/git-core/git SUBCOMMAND).
std::string program_of(const ProcessRecord& r) {
  const std::string& path = r.argv.empty() ? r.exe : r.argv[0];
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  bool multi_call = name == "git" || name == "busybox";
  if (multi_call && r.argv.size() > 1 && is_subcommand(r.argv[1])) name += " " + r.argv[1];
  return name;
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

// The sum over processes of one timeline column, as a step function: a
// process counts from its first sample to its end, at its latest sample. One
// point after the samples of each instant, and one more after the ends at
// that instant (a vertical drop), so a process's last reading is kept.
// O(samples log samples), however many processes overlap.
std::vector<CurvePoint> summed_curve(const std::vector<const ProcessRecord*>& with,
                                     std::vector<uint64_t> Timeline::*column, uint64_t origin_ns) {
  struct Event {
    double t;
    int kind;  // 0: a sample, 1: the process's end
    size_t process;
    double value;
  };
  std::vector<Event> events;
  for (size_t p = 0; p < with.size(); ++p) {
    const ProcessRecord& r = *with[p];
    const std::vector<uint64_t>& values = (*r.timeline).*column;
    if (values.empty()) continue;
    // In ns since the origin, divided once: equal instants stay equal.
    double start = double(r.start_ns - std::min(r.start_ns, origin_ns));
    double end = double(std::max(r.end_ns, r.start_ns) - std::min(r.start_ns, origin_ns)) / 1e9;
    for (size_t k = 0; k < values.size() && k < r.timeline->t_ms.size(); ++k) {
      double t = (start + r.timeline->t_ms[k] * 1e6) / 1e9;
      if (t <= end) events.push_back({t, 0, p, double(values[k])});
    }
    events.push_back({end, 1, p, 0});
  }
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.t != b.t ? a.t < b.t : a.kind < b.kind;
  });
  std::vector<double> current(with.size(), 0);
  std::vector<CurvePoint> out;
  double sum = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    // Ends drop straight down: the sum before them at the same instant first.
    bool group_starts = i == 0 || events[i - 1].t != e.t || events[i - 1].kind != e.kind;
    if (group_starts && e.kind == 1 && !out.empty() && out.back().x != e.t)
      out.push_back({e.t, out.back().y});
    sum += e.value - current[e.process];
    current[e.process] = e.value;
    bool group_ends =
        i + 1 == events.size() || events[i + 1].t != e.t || events[i + 1].kind != e.kind;
    if (group_ends) out.push_back({e.t, sum < 0.5 ? 0 : sum});
  }
  return out;
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

MemoryChartData memory_chart_of_run(const RunFigures& run, size_t largest,
                                    const TimelineSpool* spool) {
  MemoryChartData d;
  std::vector<const ProcessRecord*> records = records_of(run);
  std::vector<ProcessRecord> loaded;  // the run's points, for this chart only
  if (spool) {
    loaded.reserve(records.size());  // the pointers below stay valid
    for (const ProcessRecord*& r : records) {
      if (!r->timeline || r->timeline->spooled == 0) continue;
      loaded.push_back(*r);
      loaded.back().timeline = spool->get(*r->timeline);
      r = &loaded.back();
    }
  }
  std::vector<const ProcessRecord*> with;
  for (const ProcessRecord* r : records) {
    d.timeline_recorded = d.timeline_recorded || r->timeline;
    if (r->timeline && !r->timeline->t_ms.empty()) with.push_back(r);
  }
  if (with.empty()) return d;
  for (const ProcessRecord* r : with) d.samples += r->timeline->t_ms.size();
  uint64_t origin_ns = first_start(records);
  MemorySeries rss{"whole tree, resident", summed_curve(with, &Timeline::rss_bytes, origin_ns),
                   true};
  MemorySeries size{"whole tree, size", summed_curve(with, &Timeline::size_bytes, origin_ns),
                    false};
  d.series.push_back(std::move(rss));
  if (!size.points.empty()) d.series.push_back(std::move(size));
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
      double start = double(r.start_ns - std::min(r.start_ns, origin_ns));
      for (size_t k = 0; k < r.timeline->t_ms.size() && k < r.timeline->rss_bytes.size(); ++k)
        s.points.push_back(
            {(start + r.timeline->t_ms[k] * 1e6) / 1e9, double(r.timeline->rss_bytes[k])});
      d.series.push_back(std::move(s));
    }
  }
  // The kernel's resident peak (VmHWM) of the process with the largest one,
  // when it is above the whole tree's sampled resident curve: a spike that
  // fell between two samples. (The size curve is another quantity: not compared.)
  const ProcessRecord* top = nullptr;
  for (const ProcessRecord* r : records)
    if (!top || r->rss_peak_bytes > top->rss_peak_bytes) top = r;
  double sampled = 0;
  for (const CurvePoint& p : d.series[0].points) sampled = std::max(sampled, p.y);
  if (top && double(top->rss_peak_bytes) > sampled) {
    d.kernel_peak_bytes = double(top->rss_peak_bytes);
    d.kernel_peak_label = fmt::format("kernel resident peak of {} (VmHWM)", program_of(*top));
  }
  return d;
}

namespace {

// A grouped row's images that overlap, or are closer than this part of the
// run (under a pixel), are one bar: thousands of processes give hundreds of
// bars, not thousands drawn over each other.
constexpr double kMergeGaps = 2000;

// The bars of a grouped row: images of the same ending that overlap or
// nearly touch merged into one, with their count and sums in the tooltip; a
// bar of one image is bar_of's.
template <typename BarOf>
std::vector<TimelineBar> merged_bars(std::vector<const ProcessRecord*> images, uint64_t origin,
                                     double gap_s, const BarOf& bar_of) {
  std::stable_sort(images.begin(), images.end(),
                   [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
  struct Open {
    std::vector<const ProcessRecord*> images;
    double end_s = 0;
  };
  std::map<std::string, Open> open;  // by ending: exec'd shells and their programs interleave
  std::vector<TimelineBar> bars;
  auto close = [&](Open& o) {
    if (o.images.size() == 1) {
      bars.push_back(bar_of(*o.images[0]));
    } else if (!o.images.empty()) {
      TimelineBar b = bar_of(*o.images[0]);
      double cpu = 0, rss = 0;
      for (const ProcessRecord* r : o.images) {
        cpu += r->cpu_user_s + r->cpu_sys_s;
        rss = std::max(rss, double(r->rss_peak_bytes));
      }
      b.end_s = o.end_s;
      b.tooltip = fmt::format(
          "{} images of {} that ended by {}, from {:.3f} s to {:.3f} s\n"
          "cpu {:.3f} s in all, largest peak resident {:.2f} MiB",
          o.images.size(), b.label, o.images[0]->end, b.start_s, b.end_s, cpu, rss / kMiB);
      bars.push_back(std::move(b));
    }
    o.images.clear();
  };
  for (const ProcessRecord* r : images) {
    double start = double(r->start_ns - std::min(r->start_ns, origin)) / 1e9;
    double end = double(std::max(r->end_ns, r->start_ns) - origin) / 1e9;
    Open& o = open[r->end];
    if (!o.images.empty() && start > o.end_s + gap_s) close(o);
    o.end_s = o.images.empty() ? end : std::max(o.end_s, end);
    o.images.push_back(r);
  }
  for (auto& [end, o] : open) close(o);
  std::stable_sort(bars.begin(), bars.end(), [](const TimelineBar& a, const TimelineBar& b) {
    return a.start_s < b.start_s;
  });
  return bars;
}

}  // namespace

std::vector<TimelineRow> timeline_of_run(const RunFigures& run, double* span_s, size_t max_rows) {
  std::vector<const ProcessRecord*> records = records_of(run);
  uint64_t origin = first_start(records);
  uint64_t last = origin;
  for (const ProcessRecord* r : records) last = std::max(last, r->end_ns);
  *span_s = double(last - origin) / 1e9;
  // An exec chain: the images of one pid, in start order, on one row. An
  // image that did not end by exec ends its chain: a later image of the same
  // pid is another process (the pid was reused).
  std::map<int64_t, std::vector<const ProcessRecord*>> by_pid;
  for (const ProcessRecord* r : records) by_pid[r->pid].push_back(r);
  std::vector<std::vector<const ProcessRecord*>> chains;
  for (auto& [pid, images] : by_pid) {
    std::stable_sort(images.begin(), images.end(),
                     [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
    for (size_t i = 0; i < images.size(); ++i) {
      if (i == 0 || images[i - 1]->end != "exec") chains.emplace_back();
      chains.back().push_back(images[i]);
    }
  }
  std::stable_sort(chains.begin(), chains.end(),
                   [](const auto& a, const auto& b) { return a[0]->start_ns < b[0]->start_ns; });
  // A process's MiB of `m`, or unknown where nobody counted it (metric.h's rule).
  auto mib_text = [](const RunFigures& own, Metric m) {
    return metric_counted(own, m) ? fmt::format("{:.2f}", metric_of(own, m))
                                  : std::string(kUnknownText);
  };
  auto bar_of = [&](const ProcessRecord& r) {
    RunFigures own = own_figures(figures_of(r, ""));
    TimelineBar b;
    b.start_s = double(r.start_ns - std::min(r.start_ns, origin)) / 1e9;
    b.end_s = double(std::max(r.end_ns, r.start_ns) - origin) / 1e9;
    b.label = program_of(r);
    b.end = r.end;
    b.tooltip = fmt::format(
        "{}\npid {}, {}\n{:.3f} s, cpu {:.3f} s, peak resident {:.2f} MiB, size {:.2f} MiB\n"
        "malloc {} MiB, copied {} MiB",
        command_line(r), r.pid, ending_text(r), b.end_s - b.start_s, r.cpu_user_s + r.cpu_sys_s,
        double(r.rss_peak_bytes) / kMiB, double(r.vm_peak_bytes) / kMiB,
        mib_text(own, Metric::kMalloc), mib_text(own, Metric::kCopied));
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
  std::map<std::string, std::vector<const ProcessRecord*>> grouped;
  std::map<std::string, size_t> counts;
  std::vector<std::string> order;
  for (size_t i = kept; i < chains.size(); ++i) {
    std::string name = program_of(*chains[i].back());
    if (!grouped.count(name)) order.push_back(name);
    counts[name] += 1;
    for (const ProcessRecord* r : chains[i]) grouped[name].push_back(r);
  }
  for (const std::string& name : order) {
    TimelineRow row;
    row.label = fmt::format("{} ×{}", name, counts[name]);
    row.bars = merged_bars(grouped[name], origin, *span_s / kMergeGaps, bar_of);
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

void add_stack(IcicleNode* node, const std::vector<std::string>& frames, uint64_t bytes,
               uint64_t calls) {
  add_saturating(node->bytes, bytes);
  add_saturating(node->calls, calls);
  for (const std::string& f : frames) {
    auto it = std::find_if(node->children.begin(), node->children.end(),
                           [&](const IcicleNode& c) { return c.name == f; });
    if (it == node->children.end()) {
      node->children.push_back({f, 0, 0, {}});
      it = node->children.end() - 1;
    }
    node = &*it;
    add_saturating(node->bytes, bytes);
    add_saturating(node->calls, calls);
  }
}

void sort_children(IcicleNode* node) {
  std::stable_sort(node->children.begin(), node->children.end(),
                   [](const IcicleNode& a, const IcicleNode& b) { return a.bytes > b.bytes; });
  for (IcicleNode& c : node->children) sort_children(&c);
}

}  // namespace

namespace {

void merge_into(IcicleDiffNode* into, const IcicleNode& from, double per_run, bool after) {
  (after ? into->after : into->before) += double(from.bytes) / per_run;
  for (const IcicleNode& c : from.children) {
    auto it = std::find_if(into->children.begin(), into->children.end(),
                           [&](const IcicleDiffNode& d) { return d.name == c.name; });
    if (it == into->children.end()) {
      into->children.push_back({c.name, 0, 0, {}});
      it = into->children.end() - 1;
    }
    merge_into(&*it, c, per_run, after);
  }
}

void sort_diff(IcicleDiffNode* n) {
  std::stable_sort(n->children.begin(), n->children.end(),
                   [](const IcicleDiffNode& a, const IcicleDiffNode& b) {
                     return std::max(a.before, a.after) > std::max(b.before, b.after);
                   });
  for (IcicleDiffNode& c : n->children) sort_diff(&c);
}

}  // namespace

IcicleDiffNode icicle_diff(const IcicleNode& before, size_t runs_before, const IcicleNode& after,
                           size_t runs_after) {
  IcicleDiffNode root{"all", 0, 0, {}};
  merge_into(&root, before, double(std::max<size_t>(runs_before, 1)), false);
  merge_into(&root, after, double(std::max<size_t>(runs_after, 1)), true);
  sort_diff(&root);
  return root;
}

IcicleNode icicle_of_operation(const std::vector<ProcessBacktraces>& processes,
                               const std::string& test, const std::string& op,
                               const SymbolTable& symbols) {
  IcicleNode root{"all", 0, 0, {}};
  for (const ProcessBacktraces& p : processes) {
    if (p.test != test || p.op != op) continue;
    for (const AllocationGroup& g : p.groups) {
      // Root first: the outermost frame (main, or the thread's start) on top.
      std::vector<std::string> frames;
      for (auto it = g.frames.rbegin(); it != g.frames.rend(); ++it)
        frames.push_back(frame_label(p, *it, symbols));
      add_stack(&root, frames, g.bytes, g.count);
    }
    if (p.other)
      add_stack(&root, {"(call stacks not kept in the record)"}, p.other->bytes, p.other->count);
  }
  sort_children(&root);
  return root;
}

}  // namespace account
