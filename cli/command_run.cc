// account run: the command under the shim, its process tree sampled, one tree
// record per run, and the command's own exit status returned.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

#include "add.h"
#include "aggregate.h"
#include "cell_text.h"
#include "clock.h"
#include "close_descriptors.h"
#include "comma_list.h"
#include "commands.h"
#include "commands/budget.h"
#include "image_file.h"
#include "metric.h"
#include "option_values.h"
#include "output_probe.h"
#include "proc_events.h"
#include "record.h"
#include "record_file.h"
#include "record_writer.h"
#include "run_cgroup.h"
#include "run_guard.h"
#include "run_leftovers.h"
#include "run_prepare.h"
#include "run_signals.h"
#include "sampling.h"
#include "shim_location.h"
#include "spawn.h"
#include "store.h"
#include "tree_members.h"
#include "tree_sampler.h"
#include "values.h"

extern char** environ;

namespace account {

namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

// The status of a run account run itself could not carry out: a --prepare
// failed, or records were lost (the output filled up during the run). As env,
// nohup and timeout use 125 for their own failures.
constexpr int kRunFailed = 125;

constexpr const char* kRunHelp =
    "\n"
    "Exit status: the command's (128+N when signal N ended it, or when account run\n"
    "got SIGINT, SIGTERM or SIGHUP and passed it on); 125 when account run could not\n"
    "do its part (--prepare failed, or records were lost: the output filled up);\n"
    "126 or 127 when the command could not be run; 1 for a bad option (nothing run).\n"
    "See docs/run.md.\n";

struct RunOptions {
  std::string test, op, output, backtrace_min, prepare;
  // As typed: checked by check_values, never wrapped by an unsigned parse.
  std::string interval_text, timeout_text, repeat_text, kill_after_text;
  unsigned interval_ms = kDefaultIntervalMs;
  bool timeline = false;
  double timeout_s = 0;  // 0: none
  double kill_after_s = 5;
  unsigned repeat = 1;
  bool quiet = false;
  std::vector<std::string> stop_signal_texts;
  std::vector<int> stop_signals;  // ended by one of these, the run is stopped, not failed
  std::string budget_text;
  std::vector<Budget> budgets;
  std::string cgroup_text = "auto";
  CgroupMode cgroup = CgroupMode::kAuto;
  std::optional<CgroupPlace> cgroup_place;  // found once, before the first run
  std::string no_cgroup_place;              // why there is none
  std::vector<std::string> command;
  // --store/--commit: the run's records kept in the results store (store/add.h).
  std::string store, commit, repo = ".", branch;
};

po::options_description run_options(RunOptions& o) {
  po::options_description d("account run [options] -- COMMAND...");
  d.add_options()("help,h", "this help")("test", po::value(&o.test),
                                         "test label copied into every record (ACCOUNT_TEST)")(
      "op", po::value(&o.op), "operation label copied into every record (ACCOUNT_OP)")(
      "output,o", po::value(&o.output),
      "append records to FILE (default: a temporary file, removed after the summary)")(
      "interval", po::value(&o.interval_text)->default_value(std::to_string(kDefaultIntervalMs)),
      "sampling interval in milliseconds, 0-1000 (0: no per-process sampler); a tick may "
      "come up to one interval, at most 5 ms, late")(
      "backtrace-min", po::value(&o.backtrace_min),
      "capture a backtrace for each allocation of at least SIZE (e.g. 10M)")(
      "timeline", po::bool_switch(&o.timeline), "keep the sampled time series in the records")(
      "budget", po::value(&o.budget_text),
      "FIGURE=SIZE,...: exit 3 when a figure of the run (size, resident, anon, heap, copied, "
      "malloc, as the report computes it) is over its SIZE (e.g. malloc=10M), 5 when one is "
      "unknown; a failed command keeps its own status")(
      "timeout", po::value(&o.timeout_text),
      "kill the process tree after SEC seconds (0.001-1000000) and mark the run aborted")(
      "kill-after", po::value(&o.kill_after_text)->default_value("5"),
      "after SIGINT, SIGTERM or SIGHUP, passed on to the tree: SIGKILL what is left of it "
      "after SEC seconds (0-3600)")("repeat", po::value(&o.repeat_text)->default_value("1"),
                                    "run COMMAND N times (1-1000000), one tree record each")(
      "prepare", po::value(&o.prepare), "run `sh -c CMD` before each repetition, unaccounted")(
      "stop-signal", po::value(&o.stop_signal_texts)->composing(),
      "SIG (TERM, SIGHUP, 15; repeatable) is the command's normal stop: ended by it, the run "
      "reads as stopped (counted like exit 0), not failed")("quiet,q", po::bool_switch(&o.quiet),
                                                            "no summary line on stderr")(
      "cgroup", po::value(&o.cgroup_text)->default_value("auto"),
      "auto, off or require: put the command in a cgroup of its own for the kernel's exact tree "
      "peak (cgroup_memory_peak_bytes, pids_peak; docs/cgroup.md). auto: where it can (root, "
      "or a delegated subtree), else one line; require: else run nothing (exit 125)")(
      "store", po::value(&o.store),
      "keep this run's records in the results store (an SQLite file or postgresql://...; "
      "default with --commit: $ACCOUNT_STORE, else .account/results.sqlite at the repository's "
      "top)")("commit", po::value(&o.commit),
              "the revision the records are stored at (with --store: default HEAD)")(
      "repo", po::value(&o.repo), "the git repository of --commit (default: .)")(
      "branch", po::value(&o.branch), "the branch stored with the records");
  return d;
}

// Splits "options -- command" (or "options command" when no "--" is given: the
// first argument that is neither an option nor an option's value starts it).
void split_command(const Args& args, Args* options, Args* command) {
  static const char* const kTakesValue[] = {
      "--test",   "--op",      "-o",           "--output",        "--interval",    "--timeout",
      "--repeat", "--prepare", "--kill-after", "--backtrace-min", "--stop-signal", "--store",
      "--commit", "--repo",    "--branch",     "--budget",        "--cgroup"};
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      command->assign(args.begin() + long(i) + 1, args.end());
      return;
    }
    if (a.empty() || a[0] != '-') {
      command->assign(args.begin() + long(i), args.end());
      return;
    }
    options->push_back(a);
    for (const char* v : kTakesValue)
      if (a == v && i + 1 < args.size()) options->push_back(args[++i]);
  }
}

void set_env(const char* name, const std::string& value) {
  setenv(name, value.c_str(), 1);
}

struct RunResult {
  int status = 0;  // raw wait status
  bool aborted = false;
  int interrupted = 0;                // the first signal account run got and passed on, 0: none
  uint64_t killed_after = 0;          // processes SIGKILLed when --kill-after ran out
  bool started = true;                // false: the command could not be run at all
  uint64_t start_ns = 0, end_ns = 0;  // the command's own: spawn to its end
  uint64_t tree_end_ns = 0;           // when the last process of the tree ended
  uint64_t processes = 0;
  uint64_t processes_without_shim = 0;
  uint64_t lost_image_files = 0;  // of those, processes that truncated their image file
  SampledPeaks peaks{};
  uint64_t own_cpu_ns = 0;     // account run's CPU for this run (the tree record's sampler_cpu_s)
  uint64_t waited_cpu_ns = 0;  // wait4's rusage of the command (waited_cpu_s)
  uint64_t waited_max_rss_bytes = 0;
  bool lingering = false;      // daemons outlive the command: a sampler writes the tree record
  uint64_t records_lost = 0;   // records that could not be written (the tree record too)
  std::string write_error;     // why the first of them was lost
  CgroupPeaks cgroup;          // the command's cgroup's (none without one)
  bool cgroup_failed = false;  // --cgroup=require could not be met: nothing ran
};

uint64_t timeval_ns(const timeval& tv) {
  return uint64_t(tv.tv_sec) * 1000000000ull + uint64_t(tv.tv_usec) * 1000ull;
}

std::string tree_record(const RunOptions& o, const RunResult& r, unsigned run) {
  TreeFigures t;
  t.test = o.test.c_str();
  t.op = o.op.c_str();
  t.run = run;
  t.start_ns = r.start_ns;
  t.end_ns = r.end_ns;
  t.tree_end_ns = r.tree_end_ns;
  t.processes = r.processes;
  t.processes_without_shim = r.processes_without_shim;
  t.peaks = r.peaks;
  t.have_sampler_cpu = true;
  t.sampler_cpu_ns = r.own_cpu_ns;
  t.have_waited = true;
  t.waited_cpu_ns = r.waited_cpu_ns;
  t.waited_max_rss_bytes = r.waited_max_rss_bytes;
  t.have_status = true;
  t.wait_status = r.status;
  t.aborted = r.aborted;
  t.interrupted = r.interrupted;
  t.killed_after = r.killed_after;
  t.have_cgroup_memory_peak = r.cgroup.memory_bytes.has_value();
  t.cgroup_memory_peak_bytes = r.cgroup.memory_bytes.value_or(0);
  t.have_pids_peak = r.cgroup.pids.has_value();
  t.pids_peak = r.cgroup.pids.value_or(0);
  t.stop_signals = o.stop_signals.data();
  t.stop_signal_count = int(o.stop_signals.size());
  std::vector<const char*> argv;
  size_t argv_bytes = 0;
  for (const std::string& a : o.command) argv.push_back(a.c_str()), argv_bytes += a.size();
  t.command = argv.data();
  t.command_argc = int(argv.size());
  std::string line(64 * 1024 + 6 * (o.test.size() + o.op.size() + argv_bytes + argv.size()), '\0');
  TextBuffer out(line.data(), line.size());
  compose_tree_record(out, t);
  line.resize(out.size());
  return line;
}

// Returns "" or why the record could not be written. Said by the caller
// (account run, in its count of lost records), or here (a lingering sampler,
// whose account run has left).
std::string write_tree_record(const std::string& path, const std::string& line) {
  return append_record_line(path, line);
}

// Reaps every child but `keep` that has exited (orphans that came back to us),
// and reports whether `keep` has exited (held as a zombie, not reaped, so the
// tree sampler can still read how it died).
bool reap_others(pid_t keep) {
  bool keep_exited = false;
  for (;;) {
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) break;
    if (info.si_pid == keep) {
      keep_exited = true;
      // Reap the others one by one until only `keep` is left waiting.
      bool reaped_any = false;
      for (pid_t c : children_of(getpid())) {
        if (c == keep) continue;
        int st;
        if (waitpid(c, &st, WNOHANG) > 0) reaped_any = true;
      }
      if (!reaped_any) break;
      continue;
    }
    int st;
    waitpid(info.si_pid, &st, WNOHANG);
  }
  return keep_exited;
}

// The run's private directory for image files: on tmpfs, so the counters the
// processes write never go to a disk. Empty if none can be made (the shim
// then starts a sampler per image).
std::vector<std::string> image_dir_bases() {
  std::vector<std::string> bases = {"/dev/shm"};
  if (const char* tmp = getenv("TMPDIR"); tmp && *tmp) bases.emplace_back(tmp);
  bases.emplace_back("/tmp");
  return bases;
}

std::string make_image_dir() {
  for (const std::string& base : image_dir_bases()) {
    std::string tmpl = run_name_template(base, "");
    if (mkdtemp(tmpl.data())) return tmpl;  // mode 0700
  }
  return "";
}

// What the tree sampler writes for an image killed before it could copy its
// own identity and settings into its file.
std::unique_ptr<ImageInfo> run_fallback_info(const RunOptions& o, const std::string& path) {
  auto info = std::make_unique<ImageInfo>();
  Settings& s = info->settings;
  s.has_output = true;
  copy_string(s.output, sizeof s.output, path.c_str());
  copy_string(s.test, sizeof s.test, o.test.c_str());
  copy_string(s.op, sizeof s.op, o.op.c_str());
  s.sample_ms = o.interval_ms;
  return info;
}

// Processes of the run still live after the command ended (daemons): a
// detached "account-sampler" keeps watching them until they end, so each is
// still recorded, even if it is killed; then it removes the image directory.
// The run's tree record is its to write, once the last of them has ended.
// With a temporary output no one reads the records: the sampler writes no
// tree record and removes the file the daemons' records made again.
void linger(TreeSampler& tree, RunCgroup* cgroup, const RunOptions& o, const std::string& path,
            RunResult r, unsigned run, const RunSignals& signals, bool temporary) {
  unsigned interval_ms = o.interval_ms ? o.interval_ms : 5;
  pid_t pid = fork();
  if (pid < 0 && !temporary) {  // the images still record themselves; the tree record is now
    r.tree_end_ns = realtime_ns();
    if (std::string err = write_tree_record(path, tree_record(o, r, run)); !err.empty())
      fmt::print(stderr, "account: cannot write the tree record to {}: {}\n", path, err);
  }
  if (pid > 0 && cgroup) cgroup->release();  // the daemons are still in it: the sampler's to remove
  if (pid != 0) return;
  signals.restore();  // a TERM ends this sampler as any other process
  setsid();
  prctl(PR_SET_NAME, "account-sampler", 0, 0, 0);
  // A lingering sampler must not hold a pipe its caller waits on.
  close_descriptors_except([&](int fd) { return tree.owns_descriptor(fd); });
  Ticker ticker(interval_ms);
  while (tree.live_processes() > 0) {
    pollfd p{tree.wait_fd(), POLLIN, 0};
    ticker.wait(&p, 1);
    tree.handle_ended();
    if (ticker.due()) tree.tick();
  }
  tree.empty_image_dir();  // counts what it finds: before the tree record
  r.tree_end_ns = std::max(r.end_ns, tree.last_end_ns());
  r.processes = tree.processes_seen();
  r.processes_without_shim = tree.processes_without_shim();
  r.peaks = tree.peaks();
  r.own_cpu_ns += process_cpu_now_ns();  // a fork's own CPU starts at 0
  if (cgroup) r.cgroup = cgroup->peaks();
  if (temporary)
    unlink(path.c_str());
  else if (std::string err = write_tree_record(path, tree_record(o, r, run)); !err.empty())
    fmt::print(stderr, "account: cannot write the tree record to {}: {}\n", path, err);
  if (cgroup) cgroup->remove();
  // Last: the directory's end tells that the record file is complete.
  tree.remove_image_dir();
  _exit(0);
}

std::chrono::steady_clock::time_point after_seconds(double s) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(s));
}

// The run's cgroup, or nullptr: said once under auto, or *failed under require.
std::unique_ptr<RunCgroup> make_run_cgroup(const RunOptions& o, unsigned run, bool* failed) {
  static bool said = false;
  if (o.cgroup == CgroupMode::kOff) return nullptr;
  std::string why;
  std::unique_ptr<RunCgroup> cgroup =
      o.cgroup_place ? RunCgroup::make(*o.cgroup_place, run, &why) : nullptr;
  if (!o.cgroup_place) why = o.no_cgroup_place;
  if (cgroup) return cgroup;
  if (o.cgroup == CgroupMode::kRequire) {
    fmt::print(stderr, "account: run: --cgroup=require: {}\n", why);
    *failed = true;
  } else if (!said && !o.quiet) {
    fmt::print(stderr,
               "account run: no cgroup of its own for the command ({}): no "
               "cgroup_memory_peak_bytes (--cgroup=off to not try)\n",
               why);
  }
  said = true;
  return nullptr;
}

RunResult run_once(const RunOptions& o, const std::string& path, unsigned run, RunSignals& signals,
                   bool temporary, RunGuard& guard) {
  RunResult r;
  std::unique_ptr<RunCgroup> cgroup = make_run_cgroup(o, run, &r.cgroup_failed);
  if (r.cgroup_failed) {
    r.status = kRunFailed << 8;
    r.started = false;
    r.start_ns = r.end_ns = realtime_ns();
    return r;
  }
  uint64_t cpu_at_start = process_cpu_now_ns();
  std::string image_dir = make_image_dir();
  if (image_dir.empty())
    unsetenv(kRunDirVariable);
  else
    set_env(kRunDirVariable, image_dir);
  std::unique_ptr<ImageInfo> fallback = run_fallback_info(o, path);
  TreeSampler tree(getpid(), image_dir, fallback.get());
  if (o.timeline) tree.follow_images_every_tick();
  // Where the kernel's process events can be read (root), every fork of the
  // tree is counted, also a static program's that ends within a tick.
  // Subscribed before the command starts; read every kSlowEvery turns (not
  // woken by every fork on the machine). Without an image directory the
  // shim starts samplers of its own, which are no processes of the tree.
  std::unique_ptr<ProcEvents> events;
  if (!image_dir.empty()) {
    events = std::make_unique<ProcEvents>();
    if (!events->ok()) events.reset();
  }
  TreeMembers members;
  auto follow_forks = [&] {
    ProcEvent e;
    while (events && events->next(&e))
      if (members.follow(e)) tree.forked(e.pid);
  };

  // The command starts with the signal mask and dispositions account run started with.
  // A guard that knows the tree by list reaches the command's children through
  // it: the command must not die first and orphan them (run_guard.h).
  static const std::vector<int> kNoGroups;
  Spawned spawned =
      spawn_command(o.command, signals.child(), nullptr, !guard.by_list(),
                    cgroup ? cgroup->join_fds() : kNoGroups, o.cgroup == CgroupMode::kRequire);
  if (spawned.pid < 0 && spawned.join_error != 0 && o.cgroup == CgroupMode::kRequire) {
    r.cgroup_failed = true;
    fmt::print(stderr, "account: run: --cgroup=require: the command cannot join its cgroup: {}\n",
               std::strerror(spawned.join_error));
    r.status = kRunFailed << 8;
    r.started = false;
    r.start_ns = r.end_ns = realtime_ns();
    tree.remove_image_dir();
    return r;
  }
  if (spawned.pid >= 0 && spawned.join_error != 0) {
    fmt::print(stderr,
               "account run: the command cannot join its cgroup ({}): no "
               "cgroup_memory_peak_bytes\n",
               std::strerror(spawned.join_error));
    cgroup.reset();
  }
  if (spawned.pid < 0) {
    int err = spawned.error;
    fmt::print(stderr, "account: cannot run '{}': {}\n", o.command[0], std::strerror(err));
    r.status = (err == ENOENT ? 127 : 126) << 8;
    r.started = false;
    r.start_ns = r.end_ns = realtime_ns();
    tree.remove_image_dir();
    return r;
  }
  pid_t child = spawned.pid;
  guard.publish(child, {});
  tree.add_root(child);
  members.add(child);
  r.start_ns = spawned.exec_ns;
  int child_fd = int(syscall(SYS_pidfd_open, child, 0));
  Ticker ticker(o.interval_ms ? o.interval_ms : 5);
  auto started = std::chrono::steady_clock::now();
  std::vector<pid_t> killed;
  std::vector<pid_t> killed_late;  // by --kill-after, each pid once
  auto kill_late = [&](pid_t p) {
    // A zombie takes a signal as if it were alive: one of our children (the
    // command, an orphan that came back) that already ended is not counted as
    // killed by --kill-after.
    siginfo_t ended{};
    if (waitid(P_PID, id_t(p), &ended, WEXITED | WNOHANG | WNOWAIT) == 0 && ended.si_pid == p)
      return;
    if (kill(p, SIGKILL) != 0) return;
    killed.push_back(p);
    if (std::find(killed_late.begin(), killed_late.end(), p) == killed_late.end())
      killed_late.push_back(p);
  };
  // A signal to account run goes on to the command and every live process of
  // its tree (a second one, as Ctrl-C gives the command from the terminal, is
  // harmless); what is left of the tree --kill-after later is killed.
  auto kill_at = std::chrono::steady_clock::time_point::max();
  auto pass_on_signals = [&] {
    while (int sig = signals.take()) {
      if (!r.interrupted) {
        r.interrupted = sig;
        kill_at = after_seconds(o.kill_after_s);
      }
      forward_signal(sig, child, tree.live());
    }
  };
  auto kill_when_due = [&] {
    if (std::chrono::steady_clock::now() < kill_at) return false;
    for (pid_t p : tree.live()) kill_late(p);
    return true;
  };
  bool killed_after = false;
  uint64_t turns = 0;
  for (;;) {
    // Not woken by every process of the tree that ends (tree.wait_fd()): a
    // script of short commands would wake this process, on the other core,
    // at every one of them. An ended process waits for the next tick.
    pollfd fds[2] = {{signals.fd(), POLLIN, 0}, {child_fd, POLLIN, 0}};
    ticker.wait(fds, child_fd >= 0 ? 2 : 1);
    if (fds[1].revents & POLLIN) r.end_ns = realtime_ns();
    if (fds[0].revents & POLLIN) pass_on_signals();
    // Before reaping: a zombie still says how it died (a tick ends with it).
    if (ticker.due())
      tree.tick();
    else
      tree.handle_ended();
    // The command's end wakes the loop through its pidfd; orphans that came
    // back to us are reaped every kSlowEvery turns (a waitid every tick was
    // one of the few system calls left in an idle tick).
    guard.publish(child, tree.live());
    bool child_ended = child_fd < 0 || (fds[1].revents & POLLIN);
    bool slow_turn = ++turns % kSlowEvery == 0;
    if (slow_turn) follow_forks();
    if ((child_ended || slow_turn) && reap_others(child)) break;
    if (kill_when_due()) {
      kill_late(child);
      killed_after = true;
    }
    if (o.timeout_s > 0 && !r.aborted &&
        std::chrono::steady_clock::now() - started > std::chrono::duration<double>(o.timeout_s)) {
      r.aborted = true;
      killed = tree.live();
      for (pid_t p : killed) kill(p, SIGKILL);
      kill(child, SIGKILL);
    }
  }
  if (r.end_ns == 0) r.end_ns = realtime_ns();
  if (child_fd >= 0) close(child_fd);
  // Interrupted: the rest of the tree has until --kill-after to end, as the command had.
  if (r.interrupted) {
    tree.tick();
    while (!tree.live().empty() && !killed_after) {
      pollfd fds[2] = {{tree.wait_fd(), POLLIN, 0}, {signals.fd(), POLLIN, 0}};
      ticker.wait(fds, 2);
      pass_on_signals();
      if (ticker.due()) tree.tick();
      tree.handle_ended();
      guard.publish(child, tree.live());
      reap_others(child);
      killed_after = kill_when_due();
    }
  }
  // What --timeout or --kill-after killed dies within moments: record it before returning.
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
       (r.aborted || killed_after) && !tree.all_ended(killed) &&
       std::chrono::steady_clock::now() < deadline;) {
    pollfd p{tree.wait_fd(), POLLIN, 0};
    poll(&p, 1, 10);
    tree.handle_ended();
  }
  r.killed_after = killed_late.size();
  size_t running = tree.settle();
  follow_forks();
  // Its rusage holds the CPU of every process it and its descendants waited
  // for: also of those without the shim, which no record shows.
  rusage usage{};
  wait4(child, &r.status, 0, &usage);
  r.waited_cpu_ns = timeval_ns(usage.ru_utime) + timeval_ns(usage.ru_stime);
  r.waited_max_rss_bytes = uint64_t(usage.ru_maxrss) * 1024;
  reap_others(-1);
  r.processes = tree.processes_seen();
  r.processes_without_shim = tree.processes_without_shim();
  r.lost_image_files = tree.lost_image_files();
  r.peaks = tree.peaks();
  r.own_cpu_ns = process_cpu_now_ns() - cpu_at_start;
  r.tree_end_ns = std::max(r.end_ns, tree.last_end_ns());
  if (cgroup) r.cgroup = cgroup->peaks();
  std::string tree_error;
  if (running > 0) {
    r.lingering = true;
    linger(tree, cgroup.get(), o, path, r, run, signals, temporary);
  } else {
    tree.remove_image_dir();
    tree_error = write_tree_record(path, tree_record(o, r, run));
  }
  // Lost so far: the images', the sampler's and the tree record (a lingering
  // sampler's losses come after account run has answered).
  r.records_lost = tree.records_lost() + !tree_error.empty();
  if (tree.first_write_error() != 0)
    r.write_error = std::strerror(tree.first_write_error());
  else
    r.write_error = tree_error;
  return r;
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
// computes them (one Aggregator): for the summary line and --budget.
RunFigures read_run_figures(const RunOptions& o, const std::string& path, std::streamoff from,
                            const std::string& pending_tree) {
  std::ifstream in(path);
  in.seekg(from);
  std::string line, reason;
  Aggregator aggregator;
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

void print_summary(const RunOptions& o, const std::string& path, const RunResult& r,
                   const RunFigures& run, bool temporary) {
  std::string label = o.test.empty() && o.op.empty() ? "" : fmt::format("{} {}: ", o.test, o.op);
  fmt::print(stderr,
             "account: {}{} process{}, wall {:.2f} s, cpu {:.2f} s, peak size {}, "
             "resident {}, copied {}, malloc {}{}{}{}{}\n",
             label, run.processes, run.processes == 1 ? "" : "es",
             double(r.end_ns - r.start_ns) / 1e9, run.cpu_s, counted_mib(run, Metric::kSize, 2),
             counted_mib(run, Metric::kResident, 2), counted_mib(run, Metric::kCopied, 1),
             counted_mib(run, Metric::kMalloc, 1),
             run.processes_without_shim ? " (" + without_shim_note(run) + ")" : "",
             r.aborted ? " (aborted: timeout)" : "",
             r.interrupted ? fmt::format(" (interrupted: SIG{})", sigabbrev_np(r.interrupted))
             : r.aborted   ? ""
                           : how_it_ended(run.end),
             temporary ? "" : fmt::format(" -> {}", path));
}

std::vector<Budget> budgets_option(const std::string& text) {
  std::vector<Budget> budgets;
  for (std::string_view item : comma_list(text)) {
    size_t eq = item.find('=');
    std::optional<Metric> m = parse_metric(item.substr(0, eq));
    if (eq == std::string_view::npos || !m || figure(*m).unit != Unit::kBytes)
      throw UsageError{fmt::format("run: --budget {}: not FIGURE=SIZE with FIGURE one of {}",
                                   std::string(item), budget_figure_names())};
    budgets.push_back({*m, size_option("run", "--budget", std::string(item.substr(eq + 1)))});
  }
  return budgets;
}

// Every value is checked before any work starts (UsageError: one line, exit 1).
void check_values(RunOptions& o, const po::variables_map& vm) {
  if (o.command.empty())
    throw UsageError{"run: no command given (account run [options] -- COMMAND...)"};
  o.interval_ms = unsigned(count_option("run", "--interval", o.interval_text, 0, 1000, "ms"));
  o.repeat = unsigned(count_option("run", "--repeat", o.repeat_text, 1, 1000000));
  o.stop_signals = signals_option("run", "--stop-signal", o.stop_signal_texts);
  if (vm.count("timeout"))
    o.timeout_s = seconds_option("run", "--timeout", o.timeout_text, 0.001, 1e6);
  o.kill_after_s = seconds_option("run", "--kill-after", o.kill_after_text, 0, 3600);
  if (o.cgroup_text == "auto")
    o.cgroup = CgroupMode::kAuto;
  else if (o.cgroup_text == "off")
    o.cgroup = CgroupMode::kOff;
  else if (o.cgroup_text == "require")
    o.cgroup = CgroupMode::kRequire;
  else
    throw UsageError{fmt::format("run: --cgroup {}: not one of auto, off, require", o.cgroup_text)};
  if (vm.count("backtrace-min")) size_option("run", "--backtrace-min", o.backtrace_min);
  if (vm.count("budget")) o.budgets = budgets_option(o.budget_text);
  if (vm.count("prepare") && o.prepare.empty())
    throw UsageError{"run: --prepare needs a command for sh -c"};
  // The shim keeps a label in kLabelCapacity bytes: a longer one would be cut
  // in the process records and not in the tree record (two rows).
  for (const auto& [option, label] : {std::pair{"--test", &o.test}, {"--op", &o.op}})
    if (label->size() >= kLabelCapacity)
      throw UsageError{fmt::format("run: {} is {} bytes long; a label holds at most {}", option,
                                   label->size(), kLabelCapacity - 1)};
  // The shim would expand % in each process's output name (%p: its pid) while
  // the tree record goes to the name as given: one run's records in several files.
  if (o.output.find('%') != std::string::npos)
    throw UsageError{fmt::format(
        "run: -o {}: '%' is not allowed in account run's output (its records must share one "
        "file); ACCOUNT_OUTPUT=...%p is the shim's own",
        o.output)};
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
  if (o.cgroup != CgroupMode::kOff) {
    o.cgroup_place = find_cgroup_place(&o.no_cgroup_place);
  }

  std::string error;
  std::string shim = find_shim(&error);
  if (shim.empty()) throw UsageError{error};
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
  // A run killed with SIGKILL left its directory and temporary output (its
  // command died with it: PR_SET_PDEATHSIG): said once, and removed.
  for (const std::string& line : remove_dead_runs(image_dir_bases())) print_message(line);
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

  const char* preload = getenv("LD_PRELOAD");
  set_env("LD_PRELOAD", preload && *preload ? shim + ":" + preload : shim);
  set_env("ACCOUNT_OUTPUT", path);
  // The shim writes only into this very file: not one re-created at its path
  // once the run removed it (docs/security.md). %p names one file a process.
  if (output_known && path.find("%p") == std::string::npos)
    set_env("ACCOUNT_OUTPUT_ID",
            fmt::format("{}:{}", uint64_t(output_stat.st_dev), uint64_t(output_stat.st_ino)));
  else
    unsetenv("ACCOUNT_OUTPUT_ID");
  set_env("ACCOUNT_TEST", o.test);
  set_env("ACCOUNT_OP", o.op);
  set_env("ACCOUNT_SAMPLE_MS", std::to_string(o.interval_ms));
  if (o.timeline) set_env("ACCOUNT_TIMELINE", "1");
  if (!o.backtrace_min.empty()) set_env("ACCOUNT_BACKTRACE_MIN", o.backtrace_min);
  std::vector<std::string> prepare_env;
  if (!o.prepare.empty()) prepare_env = unaccounted_environment(shim);

  // Before the first child: if account run is killed, its guard kills the tree.
  RunGuard guard;
  // Orphans (daemons, the shim's samplers) come back to us, so the tree stays whole.
  prctl(PR_SET_CHILD_SUBREAPER, 1);

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
    uint64_t without_shim = r.processes_without_shim - r.lost_image_files;
    if (without_shim > 0 && !warned_without_shim) {
      warned_without_shim = true;
      fmt::print(stderr,
                 "account run: {} (static or set-user-ID programs): their Copied and Malloc are "
                 "unknown\n",
                 without_shim_note(without_shim, r.processes));
    }
    // While daemons of the run live on, their sampler holds the tree record:
    // the summary reads the figures so far.
    // With records lost the summary's figures would be wrong: lost_records speaks instead.
    GateStatus budget = GateStatus::kPassed;
    if (r.started && r.records_lost == 0 && (!o.quiet || !o.budgets.empty())) {
      RunFigures figures =
          read_run_figures(o, path, from, r.lingering ? tree_record(o, r, run) : "");
      if (!o.quiet) print_summary(o, path, r, figures, !temporary.path.empty());
      budget = judge_budgets(figures, o.budgets,
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
  if (store_at && !store_run(o, *store_at, path, run_records_from)) return kRunFailed;
  // A command that failed keeps its own status; one that succeeded answers for its budgets.
  if (exit_status == 0 && worst_budget != GateStatus::kPassed)
    exit_status = worst_budget == GateStatus::kFailed ? kStatusGateFailed : kStatusNotJudged;
  return exit_status;
}

}  // namespace account
