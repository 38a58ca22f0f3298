// account run: the command under the shim, its process tree sampled, one tree
// record per run, and the command's own exit status returned. The options are
// run_options.*, one run run_once.*; here the repetitions, the summary line,
// the budgets and the store.
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "add.h"
#include "aggregate.h"
#include "cell_text.h"
#include "commands.h"
#include "commands/budget.h"
#include "file_id.h"
#include "metric.h"
#include "option_values.h"
#include "output_probe.h"
#include "record.h"
#include "record_file.h"
#include "run_guard.h"
#include "run_leftovers.h"
#include "run_once.h"
#include "run_options.h"
#include "run_prepare.h"
#include "run_signals.h"
#include "run_stages.h"
#include "shim_location.h"
#include "shim_preload.h"
#include "store.h"
#include "values.h"

namespace account {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

void set_env(const char* name, const std::string& value) {
  setenv(name, value.c_str(), 1);
}

// One line for the user: this run's records through the same aggregation as
// `account report`, so the two can never disagree.
// How the run ended, by the rule of every report (run_end.h): nothing for
// exit 0, " (stopped: SIGTERM)" for its stop signal, " (failed: exit 1)".
std::string how_it_ended(const RunEnd& end) {
  if (end.how == RunEnd::How::kStopped)
    return fmt::format(" (stopped: SIG{})", sigabbrev_np(int(end.code)));
  if (end.failed()) return fmt::format(" (failed: {})", end.text());
  return "";
}

// "1.2 MiB", or "– MiB" where nobody counted the figure (unknown, not 0):
// no process had the shim, or no sample or record holds a peak.
std::string counted_mib(const RunFigures& run, Metric m, int decimals) {
  if (!metric_counted(run, m)) return fmt::format("{} MiB", kUnknownText);
  return fmt::format("{:.{}f} MiB", metric_of(run, m), decimals);
}

// The figures of the run whose records start at `from` in `path`, as the report
// computes them (one Aggregator): for the summary line and --budget. Daemons
// still `running` have not written their records yet.
RunFigures read_run_figures(const RunOptions& o, const std::string& path, std::streamoff from,
                            const std::string& pending_tree, const std::vector<int64_t>& running) {
  std::ifstream in(path);
  in.seekg(from);
  std::string line, reason;
  Aggregator aggregator;
  aggregator.still_running(running);
  while (std::getline(in, line))
    if (auto rec = parse_record(line, &reason)) aggregator.add(*rec);
  if (auto rec = parse_record(pending_tree, &reason)) aggregator.add(*rec);
  RunFigures run;
  // Unlabelled runs may be named by their command line rather than by an empty op.
  bool unlabelled = o.test.empty() && o.op.empty();
  for (const Operation& op : aggregator.finish())
    if (op.test == o.test && (op.op == o.op || unlabelled))
      for (const RunFigures& f : op.runs)
        if (f.has_tree) run = f;
  return run;
}

// Daemons of the run that outlived its command: the line's figures are those
// of the processes that ended (the report of the file, once they end, has all).
std::string still_running_note(const RunResult& r, bool temporary) {
  size_t n = r.running.size();
  if (n == 0) return "";
  bool one = n == 1;
  return fmt::format("; {} still running {} not in these figures{}", processes_phrase(n),
                     one ? "is" : "are",
                     temporary ? ""
                     : one     ? " (its records follow in the file when it ends)"
                               : " (their records follow in the file when they end)");
}

void print_summary(const RunOptions& o, const std::string& path, const RunResult& r,
                   const RunFigures& run, bool temporary) {
  std::string label = o.test.empty() && o.op.empty() ? "" : fmt::format("{} {}: ", o.test, o.op);
  fmt::print(stderr,
             "account: {}{} process{}, wall {:.2f} s, cpu {:.2f} s, peak size {}, "
             "resident {}, copied {}, malloc {}{}{}{}{}{}\n",
             label, run.processes, run.processes == 1 ? "" : "es",
             double(r.end_ns - r.start_ns) / 1e9, run.cpu_s, counted_mib(run, Metric::kSize, 2),
             counted_mib(run, Metric::kResident, 2), counted_mib(run, Metric::kCopied, 1),
             counted_mib(run, Metric::kMalloc, 1),
             uncounted_notes(run).empty() ? "" : " (" + uncounted_notes(run) + ")",
             r.aborted ? " (aborted: timeout)" : "",
             r.interrupted ? fmt::format(" (interrupted: SIG{})", sigabbrev_np(r.interrupted))
             : r.aborted   ? ""
                           : how_it_ended(run.end),
             temporary ? "" : fmt::format(" -> {}", path), still_running_note(r, temporary));
}

// The default output: made before the command starts, removed however run ends.
struct TemporaryOutput {
  std::string path;
  ~TemporaryOutput() {
    if (!path.empty()) unlink(path.c_str());
  }
};

std::string prepare_failure(const std::string& command, int status) {
  std::string how = WIFSIGNALED(status)
                        ? fmt::format("signal SIG{}", sigabbrev_np(WTERMSIG(status)))
                        : fmt::format("exit {}", WEXITSTATUS(status));
  return fmt::format("account: run: --prepare '{}' failed ({})\n", command, how);
}

std::string lost_records(const RunResult& r, const std::string& path, int command_status) {
  return fmt::format(
      "account: run: {} record{} lost, cannot write {}: {} (the command's exit status was {})\n",
      r.records_lost, r.records_lost == 1 ? "" : "s", path, r.write_error, command_status);
}

}  // namespace

// --store: the records this run appended to `path` (from `from` on), kept at
// o.commit. One line and false when they cannot be stored.
bool store_run(const RunOptions& o, const std::string& location, const std::string& path,
               std::streamoff from) {
  std::ifstream in(path);
  in.seekg(from);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const char* tmp = getenv("TMPDIR");
  std::string copy = run_name_template(tmp && *tmp ? tmp : "/tmp", ".jsonl");
  int fd = mkstemps(copy.data(), 6);
  std::string error;
  bool ok = fd >= 0 && write(fd, text.data(), text.size()) == ssize_t(text.size());
  if (fd >= 0) close(fd);
  if (ok) {
    AddRequest request;
    request.repo = o.repo;
    request.commit = o.commit;
    request.branch = o.branch;
    request.files = {copy};
    std::optional<PreparedAdd> prepared = prepare_add(request, &error);
    std::unique_ptr<Store> store = prepared ? open_store(location, &error) : nullptr;
    ok = store && store->add(prepared->batches, &error);
  } else {
    error = fmt::format("cannot copy the run's records: {}", std::strerror(errno));
  }
  if (fd >= 0) unlink(copy.c_str());
  if (!ok) print_message("account run: --store: " + error + " (the records are in " + path + ")");
  return ok;
}

int command_run(const Args& args) {
  RunOptions o;
  Args option_args;
  split_command(args, &option_args, &o.command);
  po::options_description desc = run_options(o);
  po::variables_map vm;
  po::store(po::command_line_parser(option_args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc << kRunHelp;
    return 0;
  }
  check_values(o, vm);
  run_stage("options parsed");
  if (o.cgroup != CgroupMode::kOff) {
    o.cgroup_place = find_cgroup_place(&o.no_cgroup_place);
  }

  std::string error;
  std::string shim = find_shim(&error);
  if (shim.empty()) throw UsageError{error};
  run_stage("shim found");
  // The store and the commit are checked before the command runs.
  std::optional<std::string> store_at;
  if (vm.count("store") || vm.count("commit")) {
    if (o.commit.empty()) o.commit = "HEAD";
    std::optional<CommitInfo> commit = resolve_commit(o.repo, o.commit, &error);
    if (!commit) throw UsageError{"run: " + error};
    o.commit = commit->sha;
    store_at = store_location(o.store, o.repo, &error);
    if (!store_at) throw UsageError{"run: " + error};
    if (!open_store(*store_at, &error)) throw UsageError{"run: " + error};
  }

  // From here on SIGINT, SIGTERM and SIGHUP are read in the poll loops, so no
  // signal ends account run before it has cleaned up.
  RunSignals signals;
  // If account run is killed, its guard kills the tree. The run does not
  // wait for it: it catches up with the tree (run_guard.h).
  RunGuard guard;
  run_stage("guard started");
  // A run killed with SIGKILL left its directory and temporary output (its
  // command died with it: PR_SET_PDEATHSIG): said once, and removed.
  for (const std::string& line : remove_dead_runs(image_dir_bases())) print_message(line);
  run_stage("dead runs removed");
  TemporaryOutput temporary;
  std::string path;
  if (o.output.empty()) {
    const char* tmp = getenv("TMPDIR");
    std::string tmpl = run_name_template(tmp && *tmp ? tmp : "/tmp", ".jsonl");
    int fd = mkstemps(tmpl.data(), 6);
    if (fd < 0)
      throw UsageError{
          fmt::format("run: cannot create a temporary file: {}", std::strerror(errno))};
    close(fd);
    path = temporary.path = tmpl;
    if (std::string err = probe_record_file(path); !err.empty())
      throw UsageError{fmt::format("run: cannot write the temporary file {}: {}", path, err)};
  } else {
    path = fs::absolute(o.output).string();
    // Records (argv included) never go into a file another user made and reads.
    if (struct stat st;
        lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid != geteuid())
      throw UsageError{fmt::format("run: -o {} is owned by another user (uid {}): refused",
                                   o.output, st.st_uid)};
    if (std::string err = probe_record_file(path); !err.empty())
      throw UsageError{fmt::format("run: cannot write -o {}: {}", o.output, err)};
  }
  std::streamoff from = 0;
  struct stat output_stat;
  bool output_known = lstat(path.c_str(), &output_stat) == 0;
  if (output_known) from = output_stat.st_size;
  std::streamoff run_records_from = from;
  run_stage("output probed");

  set_env("LD_PRELOAD", preload_with_shim(shim, getenv("LD_PRELOAD")));
  set_env("ACCOUNT_OUTPUT", path);
  // The shim writes only into this very file: not one re-created at its path
  // once the run removed it (docs/security.md). %p names one file a process.
  if (output_known && path.find("%p") == std::string::npos)
    set_env("ACCOUNT_OUTPUT_ID", file_id(output_stat));
  else
    unsetenv("ACCOUNT_OUTPUT_ID");
  set_env("ACCOUNT_TEST", o.test);
  set_env("ACCOUNT_OP", o.op);
  set_env("ACCOUNT_SAMPLE_MS", std::to_string(o.interval_ms));
  if (o.timeline) set_env("ACCOUNT_TIMELINE", "1");
  if (!o.backtrace_min.empty()) set_env("ACCOUNT_BACKTRACE_MIN", o.backtrace_min);
  if (!o.backtrace_sample.empty()) set_env("ACCOUNT_BACKTRACE_SAMPLE", o.backtrace_sample);
  if (o.leaks) set_env("ACCOUNT_BACKTRACE_LEAKS", "1");
  std::vector<std::string> prepare_env;
  if (!o.prepare.empty()) prepare_env = unaccounted_environment(shim);

  int exit_status = 0;
  bool warned_without_shim = false;
  GateStatus worst_budget = GateStatus::kPassed;  // over the repetitions: failed > not judged
  for (unsigned run = 1; run <= o.repeat; ++run) {
    // A signal between repetitions (or during the summary) stops the loop here.
    if (int sig = signals.take()) {
      exit_status = 128 + sig;
      break;
    }
    if (!o.prepare.empty()) {
      ready_for_children(guard);
      PrepareResult p = run_prepare(o.prepare, prepare_env, signals, o.kill_after_s);
      if (p.interrupted) {
        exit_status = 128 + p.interrupted;
        break;
      }
      if (p.status != 0) {
        fmt::print(stderr, "{}", prepare_failure(o.prepare, p.status));
        exit_status = kRunFailed;
        break;
      }
    }
    RunResult r = run_once(o, path, run, signals, !temporary.path.empty(), guard);
    // Once per command: processes of the tree that never wrote a record.
    // A truncated image file: its process is counted without the shim (no
    // record, figures unknown), but said apart, in one line a run.
    if (r.lost_image_files > 0)
      fmt::print(stderr,
                 "account run: {} process{} truncated {} image file while the run read it: not "
                 "recorded, counted as without the shim\n",
                 r.lost_image_files, r.lost_image_files == 1 ? "" : "es",
                 r.lost_image_files == 1 ? "its" : "their");
    // While daemons of the run live on, their sampler holds the tree record:
    // the summary reads the figures so far.
    // With records lost the summary's figures would be wrong: lost_records speaks instead.
    GateStatus budget = GateStatus::kPassed;
    bool read_figures = r.started && r.records_lost == 0 &&
                        (!o.quiet || !o.budgets.empty() || r.processes_without_shim > 0);
    RunFigures figures;
    if (read_figures)
      figures =
          read_run_figures(o, path, from, r.lingering ? tree_record(o, r, run) : "", r.running);
    // The processes without the shim by the rule the summary, the report and
    // every export follow (an image that exec'd into a program that wrote no
    // record is one more): the same numbers in every line.
    uint64_t without_shim =
        read_figures ? figures.processes_without_shim : r.processes_without_shim;
    uint64_t processes = read_figures ? figures.processes : r.processes;
    without_shim -= std::min(without_shim, r.lost_image_files);
    if (without_shim > 0 && !warned_without_shim) {
      warned_without_shim = true;
      fmt::print(stderr,
                 "account run: {} (static or set-user-ID programs, ones that dropped root, ones "
                 "started with an LD_PRELOAD without the shim, or ones that stopped before the "
                 "shim started, as an ASan build does without its runtime preloaded): their "
                 "Copied and Malloc are unknown\n",
                 without_shim_note(without_shim, processes));
    }
    if (read_figures) {
      if (!o.quiet) print_summary(o, path, r, figures, !temporary.path.empty());
      budget = judge_budgets(figures, o.budgets, r.running.size(),
                             [](const std::string& line) { fmt::print(stderr, "{}", line); });
    }
    from = 0;
    if (struct stat st; stat(path.c_str(), &st) == 0) from = st.st_size;
    exit_status = WIFSIGNALED(r.status) ? 128 + WTERMSIG(r.status) : WEXITSTATUS(r.status);
    if (r.interrupted) exit_status = 128 + r.interrupted;
    if (budget == GateStatus::kFailed || worst_budget == GateStatus::kPassed) worst_budget = budget;
    // Records lost (the output filled up after the probe): the figures are
    // incomplete, whatever the command did, and the next repetition would
    // lose its records too.
    if (r.records_lost > 0) {
      fmt::print(stderr, "{}", lost_records(r, path, exit_status));
      exit_status = kRunFailed;
      break;
    }
    if (r.aborted || r.interrupted || r.cgroup_failed) break;
  }
  run_stage("summary and budgets");
  if (store_at && !store_run(o, *store_at, path, run_records_from)) return kRunFailed;
  // A command that failed keeps its own status; one that succeeded answers for its budgets.
  if (exit_status == 0 && worst_budget != GateStatus::kPassed)
    exit_status = worst_budget == GateStatus::kFailed ? kStatusGateFailed : kStatusNotJudged;
  return exit_status;
}

}  // namespace account
