#include "bisect.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "add.h"
#include "aggregate.h"
#include "compare/change.h"
#include "record.h"

extern char** environ;

namespace account {
namespace {

// Runs argv in `dir`, its standard output sent to standard error (bisect's
// own output stays its verdict); the exit status, or 128 + signal.
int run_in(const std::string& dir, const std::vector<std::string>& argv_s) {
  std::vector<char*> argv;
  for (const std::string& a : argv_s) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_adddup2(&actions, 2, 1);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Failure {
  std::string line;
  int status = 1;
};

class Bisection {
 public:
  Bisection(Store& store, const BisectOptions& o, const MessageSink& err)
      : store_(store), o_(o), err_(err) {}

  ~Bisection() {
    if (tree_.empty()) return;
    std::string out, error;
    run_git(o_.repo, {"worktree", "remove", "--force", tree_}, &out, &error);
    std::filesystem::remove_all(dir_);
  }

  void start() {
    char pattern[] = "/tmp/account-bisect-XXXXXX";
    if (!mkdtemp(pattern))
      throw Failure{fmt::format("cannot make a directory in /tmp: {}", std::strerror(errno))};
    dir_ = pattern;
    std::string out, error;
    if (!run_git(o_.repo, {"worktree", "add", "--detach", "-q", dir_ + "/tree", o_.good}, &out,
                 &error))
      throw Failure{"cannot make a worktree: " + error};
    tree_ = dir_ + "/tree";
  }

  // The runs of `sha` so far: stored ones first (reused: no build).
  std::vector<RunFigures>& runs_of(const CommitInfo& c) {
    auto [at, added] = runs_.try_emplace(c.sha);
    if (!added) return at->second;
    std::string error;
    std::optional<std::vector<std::string>> lines = store_.records_at(c.sha, &error);
    if (!lines) throw Failure{error};
    Aggregator a;
    for (const std::string& l : *lines) {
      std::string reason;
      if (std::optional<Record> r = parse_record(l, &reason)) a.add(*r);
    }
    for (const Operation& op : a.finish())
      if (op.test == o_.test && op.op == o_.op) at->second = counted_runs(op, false);
    if (!at->second.empty() && announced_.insert(c.sha).second)
      err_(fmt::format("account: bisect: {} {}: {} stored runs reused", c.sha.substr(0, 12),
                       c.subject, at->second.size()));
    return at->second;
  }

  // One more run of `c`, built first when it is not the one built last.
  void measure(const CommitInfo& c) {
    check_interrupted();
    if (built_ != c.sha) {
      std::string out, error;
      if (!run_git(tree_, {"checkout", "-q", "--force", "--detach", c.sha}, &out, &error))
        throw Failure{fmt::format("cannot check out {}: {}", c.sha.substr(0, 12), error)};
      ++builds_;
      err_(fmt::format("account: bisect: building {} {}", c.sha.substr(0, 12), c.subject));
      for (const std::string* cmd : {&o_.prepare, &o_.build})
        if (!cmd->empty() && run_in(tree_, {"sh", "-c", *cmd}) != 0)
          throw Failure{fmt::format("'{}' failed at {} {}", *cmd, c.sha.substr(0, 12), c.subject)};
      built_ = c.sha;
      check_interrupted();
    }
    std::string file = fmt::format("{}/run-{}.jsonl", dir_, ++measured_);
    std::vector<std::string> argv = {o_.account, "run", "-q", "--test", o_.test,
                                     "--op",     o_.op, "-o", file,     "--"};
    argv.insert(argv.end(), o_.command.begin(), o_.command.end());
    int status = run_in(tree_, argv);
    if (status != 0)
      throw Failure{fmt::format("the command exited with status {} at {} {}", status,
                                c.sha.substr(0, 12), c.subject)};
    AddRequest request;
    request.repo = o_.repo;
    request.commit = c.sha;
    request.labels = {"bisect=1"};
    request.files = {file};
    std::string error;
    std::optional<PreparedAdd> prepared = prepare_add(request, &error);
    if (!prepared || !store_.add(prepared->batches, &error)) throw Failure{error};
    announced_.insert(c.sha);
    runs_.erase(c.sha);
  }

  // The gate's verdict of `c` against the good commit, with runs added until
  // it is decided or repeat_max.
  GateVerdict judge(const CommitInfo& c) {
    for (;;) {
      while (runs_of(good_).size() < 2) measure(good_);
      while (runs_of(c).size() < 2) measure(c);
      std::vector<GatedFigure> figures;
      const std::vector<RunFigures>& good = runs_of(good_);
      const std::vector<RunFigures>& runs = runs_of(c);
      for (const Gate& g : o_.fail_on) {
        GatedFigure f{g,
                      o_.test + "/" + o_.op,
                      c.sha.substr(0, 12) + " vs good",
                      1,
                      good.size(),
                      runs.size(),
                      std::nullopt,
                      {},
                      {}};
        MetricChange change = metric_change(good, runs, g.metric);
        if (change.estimate.verdict != Verdict::kTooFewRuns) f.change = change;
        figures.push_back(f);
      }
      GateVerdict v = judge_gates(figures, false, "bisect");
      if (!v.failures.empty() || v.not_judged == 0) return v;
      if (runs.size() >= o_.repeat_max) {
        for (const std::string& line : v.unjudged) err_(line);
        throw Failure{fmt::format("{} {}: undecided after {} runs (--repeat-max)",
                                  c.sha.substr(0, 12), c.subject, runs.size()),
                      kStatusNotJudged};
      }
      // The side with fewer runs gets one more (the good one costs a build again).
      measure(good.size() < runs.size() ? good_ : c);
    }
  }

  void check_interrupted() {
    if (o_.interrupted && o_.interrupted->load())
      throw Failure{"interrupted: the worktree is removed, your checkout was never touched", 130};
  }

  CommitInfo good_;
  size_t builds_ = 0;

 private:
  Store& store_;
  const BisectOptions& o_;
  const MessageSink& err_;
  std::string dir_, tree_, built_;
  std::set<std::string> announced_;
  size_t measured_ = 0;
  std::map<std::string, std::vector<RunFigures>> runs_;
};

}  // namespace

int run_bisect(Store& store, const BisectOptions& o, const ByteSink& out, const MessageSink& err) {
  std::string error;
  std::optional<CommitInfo> good = resolve_commit(o.repo, o.good, &error);
  std::optional<CommitInfo> bad = good ? resolve_commit(o.repo, o.bad, &error) : std::nullopt;
  if (!bad) {
    err("account: bisect: " + error);
    return 1;
  }
  std::string list, git_error;
  if (!run_git(o.repo, {"rev-list", "--first-parent", "--reverse", bad->sha, "^" + good->sha},
               &list, &git_error)) {
    err("account: bisect: " + git_error);
    return 1;
  }
  std::vector<CommitInfo> candidates;
  for (size_t at = 0, nl; (nl = list.find('\n', at)) != std::string::npos; at = nl + 1) {
    std::optional<CommitInfo> c = resolve_commit(o.repo, list.substr(at, nl - at), &error);
    if (!c) {
      err("account: bisect: " + error);
      return 1;
    }
    candidates.push_back(*c);
  }
  if (candidates.empty() || candidates.back().sha != bad->sha) {
    err(fmt::format("account: bisect: {} is not after {} on its first-parent history", o.bad,
                    o.good));
    return 1;
  }
  Bisection b(store, o, err);
  b.good_ = *good;
  try {
    b.start();
    GateVerdict at_bad = b.judge(*bad);
    if (at_bad.failures.empty()) {
      err(
          fmt::format("account: bisect: {} is not worse than {} beyond the --fail-on limits: "
                      "nothing to look for",
                      o.bad, o.good));
      return 1;
    }
    // Invariant: candidates[lo] is good (lo = -1: the good commit), candidates[hi] bad.
    long lo = -1, hi = long(candidates.size()) - 1;
    GateVerdict verdict = at_bad;
    while (hi - lo > 1) {
      long mid = lo + (hi - lo) / 2;
      GateVerdict v = b.judge(candidates[size_t(mid)]);
      if (v.failures.empty()) {
        lo = mid;
      } else {
        hi = mid;
        verdict = v;
      }
    }
    const CommitInfo& first = candidates[size_t(hi)];
    out(fmt::format("first bad commit: {} {}\n", first.sha, first.subject));
    for (const std::string& line : verdict.failures)
      out("  " + line.substr(line.find("regression: ") + 12) + "\n");
    out(fmt::format("{} builds for {} commits after the good one\n", b.builds_, candidates.size()));
    return 0;
  } catch (const Failure& f) {
    err("account: bisect: " + f.line);
    return f.status;
  }
}

}  // namespace account
