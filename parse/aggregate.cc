#include "aggregate.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "figure_sums.h"
#include "saturating.h"

namespace account {

namespace {

// Unmatched processes kept one by one before they are folded into lumps.
constexpr size_t kPendingLimit = 1024;
// One fold cuts the pending processes at their largest start gaps into at most
// this many lumps, and an operation keeps at most kMaxLumps of them: a tree's
// processes and processes outside any tree (shim-only records) land in
// different lumps unless their starts interleave.
constexpr size_t kLumpsPerFold = 8;
constexpr size_t kMaxLumps = 32;

// The next image of a process starts within milliseconds of its exec (53 ms
// at most over the 30,378 execs of git's t55* tests under account run); a pid
// comes back only once the kernel has handed out every other one (pid_max,
// 32,768 on the development VM: over 10 s of process starts at their fastest,
// 0.3 ms each). A record of an exec'd image's pid that starts later than this
// after the exec is another process's: the exec'd image ran into a program
// that wrote no record.
constexpr uint64_t kExecToNextImageNs = 10'000'000'000;

bool continues_exec(uint64_t exec_start_ns, uint64_t exec_end_ns, uint64_t next_start_ns) {
  return next_start_ns >= exec_start_ns &&
         (next_start_ns <= exec_end_ns || next_start_ns - exec_end_ns <= kExecToNextImageNs);
}

std::string joined(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    out += a;
  }
  return out;
}

ProcessRow row_of(const ProcessRecord& p, const ProcFigures& f, bool with_record) {
  ProcessRow r;
  r.pid = p.pid;
  size_t slash = p.exe.rfind('/');
  r.program = slash == std::string::npos ? p.exe : p.exe.substr(slash + 1);
  r.argv0 = p.argv.empty() ? std::string() : p.argv[0];
  r.end = p.end;
  r.figures = own_figures(f);
  if (with_record) r.record = std::make_shared<const ProcessRecord>(p);
  return r;
}

struct Pending {
  ProcFigures figures;
  std::unique_ptr<ProcessRow> row;  // only when keeping processes
};

struct RunAcc {
  bool has_tree = false;
  uint64_t tree_start = 0, tree_end = 0;
  uint64_t tree_last_end = 0;  // tree_end_ns: processes that outlived the command belong too
  RunEnd tree_how;
  std::string tree_command;
  FigureSums sums;
  // Processes, not images: an image after one of its pid that exec'd is the
  // same process (the exec-chain rule), counted by its first image.
  uint64_t processes = 0;
  uint64_t counted = 0;            // processes the shim wrote the records of
  uint64_t uncounted_records = 0;  // processes without it ("counted": false)
  // Processes with the shim some image of which had a malloc not the shim's,
  // by pid, and those of them whose pid a later process took.
  std::unordered_set<int64_t> malloc_unseen;
  uint64_t malloc_unseen_earlier = 0;
  // The latest process of each pid if some image of it counted nothing
  // ("counted": false): uncounted_records has counted it already.
  std::unordered_set<int64_t> uncounted;
  uint64_t tree_without_shim = 0;  // the tree record's processes_without_shim
  uint64_t tree_processes = 0;     // the tree record's processes
  // The root process (earliest start) decides how a run without a tree ended.
  int64_t root_pid = 0;
  uint64_t root_start = 0;
  RunEnd root_end;
  std::string root_command;
  std::unordered_map<int64_t, RunEnd> failed_ends;  // pid -> a failed image's end
  uint64_t min_start = std::numeric_limits<uint64_t>::max(), max_start = 0, max_end = 0;
  // pid -> the figures added over images (CPU, the kernel's counters) of an
  // image that exec'd, and whether the shim counted it: with no later image of
  // that pid recorded, the next image ran without the shim.
  struct ExecImage {
    std::array<double, kFigureCount> seconds{};
    std::array<uint64_t, kFigureCount> counts{};
    bool counted = true;
    uint64_t start_ns = 0, end_ns = 0;
    int64_t namespace_pid = 0;  // its pid in its own pid namespace (0: the same)
    bool continued_by(uint64_t next_start_ns) const {
      return continues_exec(start_ns, end_ns, next_start_ns);
    }
  };
  static void add_figures(ExecImage* into, const ExecImage& from) {
    for (size_t i = 0; i < kFigureCount; ++i) {
      into->seconds[i] += from.seconds[i];
      add_saturating(into->counts[i], from.counts[i]);
    }
  }
  std::unordered_map<int64_t, ExecImage> exec_cpu;
  // An exec'd image's namespace pid -> its pid: the next image may name
  // itself by the namespace's pid (it started once the namespace had a /proc
  // of its own, as `unshare -pf --mount-proc` execs its command).
  std::unordered_map<int64_t, int64_t> exec_by_namespace_pid;
  // Exec'd images no later image continued, whose pid a later process took:
  // their figures, and how many of them the shim counted.
  ExecImage closed_execs;
  uint64_t closed_exec_without_shim = 0;
  // pid -> the start of the first image of it counted here as a new process:
  // it may continue an exec chain another lump holds (join_exec_chains). Kept
  // while this may still be merged.
  std::unordered_map<int64_t, uint64_t> heads;
  bool mergeable = true;
  std::vector<ProcessRow> rows;

  void take_root(int64_t pid, uint64_t start, const RunEnd& end, const std::string& command) {
    if (pid != root_pid || processes == 0 || end.how != RunEnd::How::kUnknown) root_end = end;
    root_pid = pid;
    root_start = start;
    root_command = command;
    auto failed = failed_ends.find(pid);
    if (root_end.how == RunEnd::How::kUnknown && failed != failed_ends.end())
      root_end = failed->second;
  }
  void close_exec(const ExecImage& image) {
    add_figures(&closed_execs, image);
    closed_exec_without_shim += image.counted ? 1 : 0;
  }
  // A new process under `pid`: what the sets say of an earlier one stays counted.
  void forget_earlier_process(int64_t pid) {
    uncounted.erase(pid);
    malloc_unseen_earlier += malloc_unseen.erase(pid);
  }
  void add(const ProcFigures& f) {
    auto open = exec_cpu.find(f.pid);
    // An image account run placed from a pid namespace below its own may
    // continue an exec'd image that ended before it was placed, whose record
    // names the namespace's pid.
    if (f.namespace_pid && (open == exec_cpu.end() || !open->second.continued_by(f.start_ns)))
      if (auto inner = exec_cpu.find(f.namespace_pid);
          inner != exec_cpu.end() && inner->second.continued_by(f.start_ns))
        open = inner;
    // An image named by its namespace's pid, continuing one that the run
    // knows by its own pid.
    if (open == exec_cpu.end() || !open->second.continued_by(f.start_ns))
      if (auto named = exec_by_namespace_pid.find(f.pid); named != exec_by_namespace_pid.end())
        if (auto outer = exec_cpu.find(named->second); outer != exec_cpu.end() &&
                                                       outer->second.namespace_pid == f.pid &&
                                                       outer->second.continued_by(f.start_ns))
          open = outer;
    bool new_process = open == exec_cpu.end() || !open->second.continued_by(f.start_ns);
    // A later process of the pid: the exec'd image's program wrote no record.
    if (new_process && open != exec_cpu.end() && (f.start_ns > open->second.start_ns || f.exec)) {
      close_exec(open->second);
      exec_cpu.erase(open);
    }
    if (new_process) forget_earlier_process(f.pid);
    if (!new_process && open->first != f.pid) exec_cpu.erase(open);  // goes on under the run's pid
    if (f.end.failed()) failed_ends[f.pid] = f.end;
    if (processes == 0 || f.start_ns < root_start)
      take_root(f.pid, f.start_ns, f.end, f.command);
    else if (f.pid == root_pid && f.end.how != RunEnd::How::kUnknown)
      root_end = f.end;
    if (f.exec) {
      exec_cpu[f.pid] = {f.seconds, f.bytes, f.counted, f.start_ns, f.end_ns, f.namespace_pid};
      if (f.namespace_pid) exec_by_namespace_pid[f.namespace_pid] = f.pid;
    } else if (!new_process)
      exec_cpu.erase(f.pid);  // the chain's last image
    sums.add(f, /*image_counts=*/!f.exec);
    if (new_process) ++processes;
    if (new_process && mergeable) heads.try_emplace(f.pid, f.start_ns);
    if (f.counted && new_process) {
      ++counted;
    } else if (!f.counted && uncounted.insert(f.pid).second) {
      // Without the shim, also when only a later image of it is (a standalone
      // image killed under the run): its figures leave that image out.
      if (!new_process) --counted;
      ++uncounted_records;
    }
    if (f.counted && !f.malloc_counted) malloc_unseen.insert(f.pid);
    min_start = std::min(min_start, f.start_ns);
    max_start = std::max(max_start, f.start_ns);
    max_end = std::max(max_end, f.end_ns);
  }
  // Processes two accumulators each counted once: `older` holds the exec'd
  // image of one with no later image there, `newer` the first image of its
  // pid, started after it. Each is one process, counted by the shim unless
  // both say not; the exec'd image closes (its figures are the later one's).
  struct Joined {
    uint64_t processes = 0, counted = 0, uncounted_records = 0;
  };
  static void join_exec_chains(RunAcc& older, const RunAcc& newer, Joined* joined) {
    for (auto it = older.exec_cpu.begin(); it != older.exec_cpu.end();) {
      auto head = newer.heads.find(it->first);
      if (head == newer.heads.end() || !it->second.continued_by(head->second)) {
        ++it;
        continue;
      }
      ++joined->processes;
      if (older.uncounted.count(it->first) && newer.uncounted.count(it->first))
        ++joined->uncounted_records;
      else
        ++joined->counted;
      it = older.exec_cpu.erase(it);
    }
  }
  // Takes everything `other` holds; either may hold the older images.
  void merge(RunAcc&& other) {
    Joined joined;
    join_exec_chains(*this, other, &joined);
    join_exec_chains(other, *this, &joined);
    for (auto& [pid, end] : other.failed_ends) failed_ends[pid] = end;
    if (other.processes > 0 && (processes == 0 || other.root_start < root_start))
      take_root(other.root_pid, other.root_start, other.root_end, other.root_command);
    for (auto& [pid, image] : other.exec_cpu) {  // a pid's latest exec'd image stays open
      auto [it, added] = exec_cpu.try_emplace(pid, image);
      if (added) continue;
      bool newer = image.start_ns > it->second.start_ns;
      close_exec(newer ? it->second : image);  // two processes of one pid
      if (newer) it->second = image;
    }
    for (auto& [inner, pid] : other.exec_by_namespace_pid) exec_by_namespace_pid[inner] = pid;
    add_figures(&closed_execs, other.closed_execs);
    closed_exec_without_shim += other.closed_exec_without_shim;
    malloc_unseen_earlier += other.malloc_unseen_earlier;
    if (mergeable) {
      for (auto& [pid, start] : other.heads) {
        auto [it, added] = heads.try_emplace(pid, start);
        if (!added) it->second = std::min(it->second, start);
      }
    }
    sums.merge(other.sums);
    processes += other.processes - joined.processes;
    counted += other.counted - joined.counted;
    uncounted_records += other.uncounted_records - joined.uncounted_records;
    malloc_unseen.insert(other.malloc_unseen.begin(), other.malloc_unseen.end());
    uncounted.insert(other.uncounted.begin(), other.uncounted.end());
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
    sums.set_tree(t);
    tree_how = end_of_tree(t);
    tree_command = joined(t.command);
    tree_without_shim = t.processes_without_shim;
    tree_processes = t.processes;
  }

  RunFigures finish(const std::unordered_set<int64_t>& running) {
    RunFigures r;
    r.recorded = sums.recorded;
    uint64_t exec_without_shim = closed_exec_without_shim;
    for (const auto& [pid, image] : exec_cpu)
      exec_without_shim += image.counted && !running.count(pid) ? 1 : 0;
    add_saturating(r.processes_without_shim, uncounted_records);
    add_saturating(r.processes_without_shim, tree_without_shim);
    add_saturating(r.processes_without_shim, exec_without_shim);
    // The tree record's whole figure (wait4's rusage of the command) holds
    // what no record can: processes without the shim, and each process's CPU
    // after its record's getrusage (its exit: the kernel freeing its memory).
    // The records hold what wait4 cannot: processes no one of the tree waited
    // for (a daemon). Each is a floor; the run's figure is the larger.
    for (const Figure& fig : figures()) {
      size_t i = size_t(fig.metric);
      switch (fig.summed) {
        case Summed::kAddedOverImages:
          if (!fig.seconds) {  // a count: each pid's last image's
            r.*fig.bytes = sums.bytes[i];
            add_saturating(r.*fig.bytes, closed_execs.counts[i]);
            for (const auto& [pid, image] : exec_cpu) add_saturating(r.*fig.bytes, image.counts[i]);
            break;
          }
          r.*fig.seconds = sums.seconds[i] + sums.unseen[i] + closed_execs.seconds[i];
          for (const auto& [pid, image] : exec_cpu) r.*fig.seconds += image.seconds[i];
          if (sums.whole[i]) r.*fig.seconds = std::max(r.*fig.seconds, *sums.whole[i]);
          break;
        case Summed::kAdded:
        case Summed::kLargest:
        case Summed::kTree:
          r.*fig.bytes = sums.bytes[i];
          break;
        case Summed::kPeak:
          r.*fig.bytes = sums.peaks[i].value();
          break;
        case Summed::kSpan:
          break;
      }
    }
    r.shim_processes = counted;
    r.malloc_unseen_processes =
        std::min<uint64_t>(malloc_unseen.size() + malloc_unseen_earlier, counted);
    // The tree knows its processes (every pid, those without the shim too);
    // the records know theirs and the tree those that wrote none. An image
    // that exec'd into a program that wrote no record makes its process one
    // without the shim, not one more process (docs/record-format.md).
    uint64_t known_apart = r.shim_processes;
    add_saturating(known_apart, uncounted_records);
    add_saturating(known_apart, tree_without_shim);
    r.processes = std::max({processes, has_tree ? tree_processes : 0, known_apart});
    r.processes_over_runs = r.processes;
    r.has_tree = has_tree;
    r.end = has_tree ? tree_how : root_end;
    r.command = has_tree && !tree_command.empty() ? tree_command : root_command;
    if (has_tree) {
      r.start_ns = tree_start;
      r.end_ns = std::max(tree_start, tree_end);
    } else if (processes > 0) {
      r.start_ns = min_start;
      r.end_ns = std::max(min_start, max_end);
    }
    r.wall_s = double(r.end_ns - r.start_ns) / 1e9;
    r.process_rows = std::move(rows);
    return r;
  }
};

// The runs of one (test, op) on one host.
struct OpState {
  std::string test, op, host;
  std::vector<RunAcc> runs;            // tree runs, in arrival order
  std::map<uint64_t, size_t> windows;  // tree start_ns -> index in runs
  std::vector<Pending> pending;        // processes in no tree window yet
  std::vector<RunAcc> lumps;           // pending processes folded, in start order

  void add_to(RunAcc& run, Pending&& p) {
    run.add(p.figures);
    if (p.row) run.rows.push_back(std::move(*p.row));
  }
  // Folds the pending processes into lumps cut at their largest start gaps,
  // then joins the closest neighbouring lumps while there are too many.
  // Pending processes in start order, whatever order their records came in:
  // the images of one pid are then added as its exec chain runs (each
  // continues the one before), also where the run wrote an exec'd image's
  // record after the next one's (an image that dropped root hands its record
  // to the run, which writes it when it handles the handover).
  void sort_pending() {
    std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
      return a.figures.start_ns < b.figures.start_ns;
    });
  }
  void fold_pending() {
    sort_pending();
    std::vector<size_t> cuts;  // a lump starts at each
    for (size_t i = 1; i < pending.size(); ++i) cuts.push_back(i);
    auto gap = [&](size_t i) {
      return pending[i].figures.start_ns - pending[i - 1].figures.start_ns;
    };
    size_t keep = std::min(cuts.size(), kLumpsPerFold - 1);
    std::partial_sort(cuts.begin(), cuts.begin() + ptrdiff_t(keep), cuts.end(),
                      [&](size_t a, size_t b) { return gap(a) > gap(b); });
    cuts.resize(keep);
    std::sort(cuts.begin(), cuts.end());
    cuts.push_back(pending.size());
    size_t at = 0;
    for (size_t cut : cuts) {
      RunAcc lump;
      for (; at < cut; ++at) add_to(lump, std::move(pending[at]));
      if (lump.processes > 0) lumps.push_back(std::move(lump));
    }
    pending.clear();
    std::stable_sort(lumps.begin(), lumps.end(),
                     [](const RunAcc& a, const RunAcc& b) { return a.min_start < b.min_start; });
    while (lumps.size() > kMaxLumps) {
      size_t best = 0;
      uint64_t best_gap = std::numeric_limits<uint64_t>::max();
      for (size_t i = 0; i + 1 < lumps.size(); ++i) {
        uint64_t g = lumps[i + 1].min_start - std::min(lumps[i + 1].min_start, lumps[i].max_start);
        if (g < best_gap) best_gap = g, best = i;
      }
      lumps[best].merge(std::move(lumps[best + 1]));
      lumps.erase(lumps.begin() + ptrdiff_t(best) + 1);
    }
  }
  // Lumps that lie wholly in `run`'s window, merged (older first) into one.
  bool claim_lumps(const RunAcc& run, RunAcc* claimed) {
    bool any = false;
    for (auto it = lumps.begin(); it != lumps.end();) {
      if (run.contains(it->min_start) && run.contains(it->max_start)) {
        if (any)
          claimed->merge(std::move(*it));
        else
          *claimed = std::move(*it);
        any = true;
        it = lumps.erase(it);
      } else {
        ++it;
      }
    }
    return any;
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
  Kept kept = Kept::kRuns;
  std::vector<OpState> ops;
  std::unordered_map<std::string, size_t> index;  // test '\0' op '\0' host -> ops
  // The (test, op) pairs in order of first appearance, each with its hosts' ops.
  std::vector<std::vector<size_t>> labels;
  std::unordered_map<std::string, size_t> label_index;  // test '\0' op -> labels
  std::vector<std::string> test_order;
  std::unordered_map<std::string, size_t> test_index;
  std::string key;
  std::unordered_set<int64_t> running;  // still_running()

  OpState& op_of(const std::string& test, const std::string& op, const std::string& host) {
    key.assign(test);
    key.push_back('\0');
    key.append(op);
    size_t label_length = key.size();
    key.push_back('\0');
    key.append(host);
    auto it = index.find(key);
    if (it != index.end()) return ops[it->second];
    index.emplace(key, ops.size());
    key.resize(label_length);
    auto [label, added] = label_index.emplace(key, labels.size());
    if (added) labels.emplace_back();
    labels[label->second].push_back(ops.size());
    if (test_index.emplace(test, test_order.size()).second) test_order.push_back(test);
    ops.push_back(OpState{});
    ops.back().test = test;
    ops.back().op = op;
    ops.back().host = host;
    return ops.back();
  }
};

namespace {
// Unlabelled runs: one operation per command line, in order of first appearance.
void split_by_command(Operation&& all, std::vector<Operation>* out) {
  size_t first = out->size();
  for (RunFigures& run : all.runs) {
    std::string name = run.command.empty() ? "(no command)" : run.command;
    auto it = std::find_if(out->begin() + ptrdiff_t(first), out->end(),
                           [&](const Operation& o) { return o.op == name; });
    if (it == out->end()) {
      Operation o;
      o.op = name;
      o.unlabelled = true;
      out->push_back(std::move(o));
      it = out->end() - 1;
    }
    it->runs.push_back(std::move(run));
  }
}
}  // namespace

Aggregator::Aggregator(Kept kept) : state_(std::make_unique<State>()) {
  state_->kept = kept;
}
Aggregator::~Aggregator() = default;

void Aggregator::add(const Record& record) {
  if (const auto* p = std::get_if<ProcessRecord>(&record)) {
    OpState& op = state_->op_of(p->test, p->op, p->host);
    Pending item{figures_of(*p, p->test.empty() && p->op.empty() ? joined(p->argv) : std::string()),
                 nullptr};
    if (state_->kept != Kept::kRuns)
      item.row = std::make_unique<ProcessRow>(
          row_of(*p, item.figures, state_->kept == Kept::kProcessRecords));
    if (RunAcc* run = op.window_of(p->start_ns)) {
      op.add_to(*run, std::move(item));
      return;
    }
    op.pending.push_back(std::move(item));
    if (op.pending.size() > kPendingLimit) op.fold_pending();
    return;
  }
  const auto& t = std::get<TreeRecord>(record);
  OpState& op = state_->op_of(t.test, t.op, t.host);
  RunAcc run;
  run.set_tree(t);
  op.sort_pending();
  auto keep = op.pending.begin();
  for (auto it = op.pending.begin(); it != op.pending.end(); ++it) {
    if (run.contains(it->figures.start_ns))
      op.add_to(run, std::move(*it));
    else
      *keep++ = std::move(*it);
  }
  op.pending.erase(keep, op.pending.end());
  if (op.pending.empty()) op.pending.shrink_to_fit();  // memory per operation stays small
  RunAcc claimed;
  if (op.claim_lumps(run, &claimed)) {
    // The folded processes belong here; merge so that the older images come first.
    claimed.merge(std::move(run));
    run = std::move(claimed);
    run.set_tree(t);
  }
  run.mergeable = false;  // later images of this window are added to it one by one
  run.heads = {};
  op.windows[t.start_ns] = op.runs.size();
  op.runs.push_back(std::move(run));
}

void Aggregator::still_running(const std::vector<int64_t>& pids) {
  state_->running.insert(pids.begin(), pids.end());
}

std::vector<Operation> Aggregator::finish() {
  State& s = *state_;
  std::vector<std::vector<size_t>> by_test(s.test_order.size());
  for (size_t i = 0; i < s.labels.size(); ++i)
    by_test[s.test_index.at(s.ops[s.labels[i].front()].test)].push_back(i);
  std::vector<Operation> out;
  out.reserve(s.labels.size());
  for (const auto& labels : by_test) {
    for (size_t label : labels) {
      Operation o;
      for (size_t i : s.labels[label]) {
        OpState& op = s.ops[i];
        // What lies in no tree's window is one run of its own.
        RunAcc rest;
        for (auto& lump : op.lumps) rest.merge(std::move(lump));
        op.sort_pending();
        for (auto& q : op.pending) op.add_to(rest, std::move(q));
        op.pending.clear();
        op.lumps.clear();
        o.test = op.test;
        o.op = op.op;
        size_t first = o.runs.size();
        for (auto& run : op.runs) o.runs.push_back(run.finish(s.running));
        if (rest.processes > 0) o.runs.push_back(rest.finish(s.running));
        for (size_t r = first; r < o.runs.size(); ++r) o.runs[r].host = op.host;
      }
      if (o.test.empty() && o.op.empty())
        split_by_command(std::move(o), &out);
      else
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
  return std::midpoint(v[n / 2 - 1], v[n / 2]);  // (a + b) / 2 could wrap
}
}  // namespace

RunFigures median_of_runs(const std::vector<RunFigures>& runs) {
  RunFigures m;
  std::vector<RunFigures> shim_runs;    // MedianOver::kShimRuns: where the shim counted some
  std::vector<RunFigures> malloc_runs;  // the same for a malloc_counter figure
  for (const RunFigures& r : runs) {
    add_saturating(m.shim_processes, r.shim_processes);
    add_saturating(m.processes_without_shim, r.processes_without_shim);
    add_saturating(m.processes_over_runs, r.processes_over_runs);
    add_saturating(m.malloc_unseen_processes, r.malloc_unseen_processes);
    if (r.shim_processes > 0) shim_runs.push_back(r);
    if (r.shim_processes > r.malloc_unseen_processes) malloc_runs.push_back(r);
  }
  for (const Figure& f : figures()) {
    std::vector<RunFigures> known;  // kWhenRecorded, kWhenPresent: over the runs that have it
    if (f.known == Known::kWhenRecorded)
      for (const RunFigures& r : runs)
        if (base_value(r, f) > 0) known.push_back(r);
    if (f.known == Known::kWhenPresent) {
      for (const RunFigures& r : runs)
        if (r.recorded & recorded_bit(f.metric)) known.push_back(r);
      if (!known.empty()) m.recorded |= recorded_bit(f.metric);
    }
    const std::vector<RunFigures>& over =
        f.median == MedianOver::kShimRuns && f.malloc_counter               ? malloc_runs
        : f.median == MedianOver::kShimRuns                                 ? shim_runs
        : f.known == Known::kWhenRecorded || f.known == Known::kWhenPresent ? known
                                                                            : runs;
    if (f.seconds)
      m.*f.seconds = median<double>(over, [&](const RunFigures& r) { return r.*f.seconds; });
    else
      m.*f.bytes = median<uint64_t>(over, [&](const RunFigures& r) { return r.*f.bytes; });
  }
  m.processes = median<uint64_t>(runs, [](const RunFigures& r) { return r.processes; });
  return m;
}

std::vector<RunFigures> counted_runs(const Operation& op, bool include_failed) {
  std::vector<RunFigures> out;
  for (const RunFigures& r : op.runs)
    if (include_failed || !r.end.failed()) out.push_back(r);
  return out;
}

size_t failed_runs(const Operation& op) {
  return size_t(std::count_if(op.runs.begin(), op.runs.end(),
                              [](const RunFigures& r) { return r.end.failed(); }));
}

bool any_failed(const std::vector<Operation>& ops) {
  return std::any_of(ops.begin(), ops.end(), [](const Operation& o) { return failed_runs(o) > 0; });
}

}  // namespace account
