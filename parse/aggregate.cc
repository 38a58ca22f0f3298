#include "aggregate.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

namespace account {

namespace {

// Unmatched processes kept one by one before they are folded into one lump.
constexpr size_t kPendingLimit = 1024;

struct ProcFigures {
  int64_t pid = 0;
  bool exec = false;
  double cpu_s = 0;
  uint64_t size = 0, rss = 0, anon = 0, copied = 0, malloc = 0;
  uint64_t start_ns = 0, end_ns = 0;
};

ProcFigures figures_of(const ProcessRecord& p) {
  ProcFigures f;
  f.pid = p.pid;
  f.exec = p.end == "exec";
  f.cpu_s = p.cpu_user_s + p.cpu_sys_s;
  f.size = std::max(p.vm_peak_bytes, p.sampled_size_peak_bytes);
  f.rss = std::max(p.rss_peak_bytes, p.sampled_rss_peak_bytes);
  f.anon = p.sampled_rss_anon_peak_bytes;  // the kernel keeps no anonymous peak
  f.copied = p.copied_bytes;
  f.malloc = p.malloc_bytes;
  f.start_ns = p.start_ns;
  f.end_ns = p.end_ns;
  return f;
}

ProcessRow row_of(const ProcessRecord& p, const ProcFigures& f) {
  ProcessRow r;
  r.pid = p.pid;
  size_t slash = p.exe.rfind('/');
  r.program = slash == std::string::npos ? p.exe : p.exe.substr(slash + 1);
  r.argv0 = p.argv.empty() ? std::string() : p.argv[0];
  r.end = p.end;
  r.cpu_s = f.cpu_s;
  r.size_bytes = f.size;
  r.resident_bytes = f.rss;
  r.anon_bytes = f.anon;
  r.copied_bytes = f.copied;
  r.malloc_bytes = f.malloc;
  r.record = std::make_shared<const ProcessRecord>(p);
  return r;
}

struct Pending {
  ProcFigures figures;
  std::unique_ptr<ProcessRow> row;  // only when keeping processes
};

// The peak rule of one figure (size, resident, anon) over a run: the larger of
// the tree record's sampled concurrent peak, where one exists, and the largest
// single process's peak.
struct RunPeak {
  uint64_t tree = 0;
  uint64_t largest_process = 0;

  void add_process(uint64_t peak) { largest_process = std::max(largest_process, peak); }
  void merge(const RunPeak& other) {
    tree = std::max(tree, other.tree);
    largest_process = std::max(largest_process, other.largest_process);
  }
  uint64_t value() const { return std::max(tree, largest_process); }
};

struct RunAcc {
  bool has_tree = false;
  uint64_t tree_start = 0, tree_end = 0;
  uint64_t tree_last_end = 0;  // tree_end_ns: processes that outlived the command belong too
  double cpu_s = 0;
  double unseen_cpu_s = 0;  // account watch --tree: CPU of processes no record shows
  RunPeak size, rss, anon;
  uint64_t copied = 0, malloc = 0, processes = 0;
  uint64_t min_start = std::numeric_limits<uint64_t>::max(), max_start = 0, max_end = 0;
  std::unordered_map<int64_t, double> exec_cpu;  // pid -> CPU of an image that exec'd
  std::vector<ProcessRow> rows;

  void add(const ProcFigures& f) {
    if (f.exec) {
      exec_cpu[f.pid] = f.cpu_s;
    } else {
      exec_cpu.erase(f.pid);
      cpu_s += f.cpu_s;
    }
    size.add_process(f.size);
    rss.add_process(f.rss);
    anon.add_process(f.anon);
    copied += f.copied;
    malloc += f.malloc;
    ++processes;
    min_start = std::min(min_start, f.start_ns);
    max_start = std::max(max_start, f.start_ns);
    max_end = std::max(max_end, f.end_ns);
  }
  // Takes everything `other` holds (an exec'd image in `other` before one here
  // of the same pid is not detected: `other` is the older lump).
  void merge(RunAcc&& other) {
    for (auto& [pid, cpu] : other.exec_cpu)
      if (!exec_cpu.count(pid)) exec_cpu[pid] = cpu;
    cpu_s += other.cpu_s;
    size.merge(other.size);
    rss.merge(other.rss);
    anon.merge(other.anon);
    copied += other.copied;
    malloc += other.malloc;
    processes += other.processes;
    min_start = std::min(min_start, other.min_start);
    max_start = std::max(max_start, other.max_start);
    max_end = std::max(max_end, other.max_end);
    for (auto& r : other.rows) rows.push_back(std::move(r));
  }
  bool contains(uint64_t start_ns) const {
    return start_ns >= tree_start && start_ns <= std::max(tree_end, tree_last_end);
  }
  void set_tree(const TreeRecord& t) {
    has_tree = true;
    tree_start = t.start_ns;
    tree_end = t.end_ns;
    tree_last_end = t.tree_end_ns;
    size.tree = t.sampled_size_peak_bytes;
    rss.tree = t.sampled_rss_peak_bytes;
    anon.tree = t.sampled_rss_anon_peak_bytes;
    unseen_cpu_s = t.unseen_cpu_s;
  }

  RunFigures finish() {
    RunFigures r;
    r.cpu_s = cpu_s + unseen_cpu_s;
    for (const auto& [pid, cpu] : exec_cpu) r.cpu_s += cpu;
    r.size_bytes = size.value();
    r.resident_bytes = rss.value();
    r.anon_bytes = anon.value();
    r.copied_bytes = copied;
    r.malloc_bytes = malloc;
    r.processes = processes;
    r.has_tree = has_tree;
    if (has_tree)
      r.wall_s = double(tree_end - std::min(tree_start, tree_end)) / 1e9;
    else if (processes > 0 && max_end > min_start)
      r.wall_s = double(max_end - min_start) / 1e9;
    r.process_rows = std::move(rows);
    return r;
  }
};

struct OpState {
  std::string test, op;
  std::vector<RunAcc> runs;            // tree runs, in arrival order
  std::map<uint64_t, size_t> windows;  // tree start_ns -> index in runs
  std::vector<Pending> pending;        // processes in no tree window yet
  RunAcc lump;                         // pending processes folded together

  void add_to(RunAcc& run, Pending&& p) {
    run.add(p.figures);
    if (p.row) run.rows.push_back(std::move(*p.row));
  }
  RunAcc* window_of(uint64_t start_ns) {
    auto it = windows.upper_bound(start_ns);
    while (it != windows.begin()) {
      --it;
      if (runs[it->second].contains(start_ns)) return &runs[it->second];
      // Windows of one operation do not usually overlap; look back a little in case.
      if (start_ns - it->first > uint64_t(3600) * 1000000000) break;
    }
    return nullptr;
  }
};

}  // namespace

struct Aggregator::State {
  bool keep_processes = false;
  std::vector<OpState> ops;
  std::unordered_map<std::string, size_t> index;  // test '\0' op -> ops
  std::vector<std::string> test_order;
  std::unordered_map<std::string, size_t> test_index;
  std::string key;

  OpState& op_of(const std::string& test, const std::string& op) {
    key.assign(test);
    key.push_back('\0');
    key.append(op);
    auto it = index.find(key);
    if (it != index.end()) return ops[it->second];
    index.emplace(key, ops.size());
    if (test_index.emplace(test, test_order.size()).second) test_order.push_back(test);
    ops.push_back(OpState{});
    ops.back().test = test;
    ops.back().op = op;
    return ops.back();
  }
};

Aggregator::Aggregator(bool keep_processes) : state_(std::make_unique<State>()) {
  state_->keep_processes = keep_processes;
}
Aggregator::~Aggregator() = default;

void Aggregator::add(const Record& record) {
  if (const auto* p = std::get_if<ProcessRecord>(&record)) {
    OpState& op = state_->op_of(p->test, p->op);
    Pending item{figures_of(*p), nullptr};
    if (state_->keep_processes) item.row = std::make_unique<ProcessRow>(row_of(*p, item.figures));
    if (RunAcc* run = op.window_of(p->start_ns)) {
      op.add_to(*run, std::move(item));
      return;
    }
    op.pending.push_back(std::move(item));
    if (op.pending.size() > kPendingLimit) {
      for (auto& q : op.pending) op.add_to(op.lump, std::move(q));
      op.pending.clear();
    }
    return;
  }
  const auto& t = std::get<TreeRecord>(record);
  OpState& op = state_->op_of(t.test, t.op);
  RunAcc run;
  run.set_tree(t);
  auto keep = op.pending.begin();
  for (auto it = op.pending.begin(); it != op.pending.end(); ++it) {
    if (run.contains(it->figures.start_ns))
      op.add_to(run, std::move(*it));
    else
      *keep++ = std::move(*it);
  }
  op.pending.erase(keep, op.pending.end());
  if (op.pending.empty()) op.pending.shrink_to_fit();  // memory per operation stays small
  if (op.lump.processes > 0 && run.contains(op.lump.min_start) && run.contains(op.lump.max_start)) {
    // The folded processes all belong here; merge so that the older images come first.
    op.lump.merge(std::move(run));
    run = std::move(op.lump);
    run.set_tree(t);
    op.lump = RunAcc{};
  }
  op.windows[t.start_ns] = op.runs.size();
  op.runs.push_back(std::move(run));
}

std::vector<Operation> Aggregator::finish() {
  State& s = *state_;
  std::vector<std::vector<size_t>> by_test(s.test_order.size());
  for (size_t i = 0; i < s.ops.size(); ++i) by_test[s.test_index.at(s.ops[i].test)].push_back(i);
  std::vector<Operation> out;
  out.reserve(s.ops.size());
  for (const auto& indices : by_test) {
    for (size_t i : indices) {
      OpState& op = s.ops[i];
      for (auto& q : op.pending) op.add_to(op.lump, std::move(q));
      op.pending.clear();
      Operation o;
      o.test = op.test;
      o.op = op.op;
      for (auto& run : op.runs) o.runs.push_back(run.finish());
      if (op.lump.processes > 0) o.runs.push_back(op.lump.finish());
      out.push_back(std::move(o));
    }
  }
  return out;
}

namespace {
template <typename T, typename Get>
T median(const std::vector<RunFigures>& runs, Get get) {
  std::vector<T> v;
  v.reserve(runs.size());
  for (const auto& r : runs) v.push_back(get(r));
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  if (n == 0) return T{};
  if (n % 2 == 1) return v[n / 2];
  return T((v[n / 2 - 1] + v[n / 2]) / 2);
}
}  // namespace

RunFigures median_of_runs(const std::vector<RunFigures>& runs) {
  RunFigures m;
  m.cpu_s = median<double>(runs, [](const RunFigures& r) { return r.cpu_s; });
  m.size_bytes = median<uint64_t>(runs, [](const RunFigures& r) { return r.size_bytes; });
  m.resident_bytes = median<uint64_t>(runs, [](const RunFigures& r) { return r.resident_bytes; });
  m.anon_bytes = median<uint64_t>(runs, [](const RunFigures& r) { return r.anon_bytes; });
  m.copied_bytes = median<uint64_t>(runs, [](const RunFigures& r) { return r.copied_bytes; });
  m.malloc_bytes = median<uint64_t>(runs, [](const RunFigures& r) { return r.malloc_bytes; });
  m.wall_s = median<double>(runs, [](const RunFigures& r) { return r.wall_s; });
  m.processes = median<uint64_t>(runs, [](const RunFigures& r) { return r.processes; });
  return m;
}

}  // namespace account
