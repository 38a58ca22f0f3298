// account run: the command under the shim, its process tree sampled, one tree
// record per run, and the command's own exit status returned.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "commands.h"
#include "record.h"
#include "record_file.h"
#include "shim_location.h"
#include "tree_sampler.h"
#include "values.h"
#include "wall_clock.h"

extern char** environ;

namespace account {

namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

struct RunOptions {
  std::string test, op, output, backtrace_min;
  unsigned interval_ms = 5;
  bool timeline = false;
  double timeout_s = 0;
  unsigned repeat = 1;
  bool quiet = false;
  std::vector<std::string> command;
};

po::options_description run_options(RunOptions& o) {
  po::options_description d("account run [options] -- COMMAND...");
  d.add_options()("help,h", "this help")("test", po::value(&o.test),
                                         "test label copied into every record (ACCOUNT_TEST)")(
      "op", po::value(&o.op), "operation label copied into every record (ACCOUNT_OP)")(
      "output,o", po::value(&o.output),
      "append records to FILE (default: a temporary file, removed after the summary)")(
      "interval", po::value(&o.interval_ms)->default_value(5),
      "sampling interval in milliseconds, 1-1000 (0: no per-process sampler)")(
      "backtrace-min", po::value(&o.backtrace_min),
      "capture a backtrace for each allocation of at least SIZE (e.g. 10M)")(
      "timeline", po::bool_switch(&o.timeline), "keep the sampled time series in the records")(
      "timeout", po::value(&o.timeout_s),
      "kill the process tree after SEC seconds and mark the run aborted")(
      "repeat", po::value(&o.repeat)->default_value(1),
      "run COMMAND N times, one tree record each")("quiet,q", po::bool_switch(&o.quiet),
                                                   "no summary line on stderr");
  return d;
}

// Splits "options -- command" (or "options command" when no "--" is given: the
// first argument that is neither an option nor an option's value starts it).
void split_command(const Args& args, Args* options, Args* command) {
  static const char* const kTakesValue[] = {
      "--test", "--op", "-o", "--output", "--interval", "--backtrace-min", "--timeout", "--repeat"};
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
  bool started = true;  // false: the command could not be run at all
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t processes = 0, size_peak = 0, rss_peak = 0, samples = 0;
};

// Reaps every child but `keep` that has exited (samplers, orphans), and reports
// whether `keep` has exited (held as a zombie, not reaped, so its sampler can
// still read how it died).
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

RunResult run_once(const RunOptions& o) {
  RunResult r;
  r.start_ns = realtime_ns();
  std::vector<char*> argv;
  for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The command gets default SIGINT/SIGQUIT even though we ignore them.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t child;
  int err = posix_spawnp(&child, argv[0], nullptr, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (err != 0) {
    fmt::print(stderr, "account: cannot run '{}': {}\n", o.command[0], std::strerror(err));
    r.status = (err == ENOENT ? 127 : 126) << 8;
    r.started = false;
    r.end_ns = realtime_ns();
    return r;
  }
  TreeSampler tree(getpid());
  auto interval = std::chrono::milliseconds(o.interval_ms ? o.interval_ms : 5);
  auto started = std::chrono::steady_clock::now();
  auto next = started;
  for (;;) {
    tree.sample();
    if (reap_others(child)) break;
    if (o.timeout_s > 0 && !r.aborted &&
        std::chrono::steady_clock::now() - started > std::chrono::duration<double>(o.timeout_s)) {
      r.aborted = true;
      for (pid_t p : tree.live()) kill(p, SIGKILL);
      kill(child, SIGKILL);
    }
    next += interval;
    std::this_thread::sleep_until(next);
  }
  r.end_ns = realtime_ns();
  // Let the samplers of processes that are gone write their records: each leaves
  // within one interval; a sampler is still needed for each live process.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline) {
    tree.sample();
    reap_others(child);
    if (tree.samplers_alive() <= tree.live().size()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  waitpid(child, &r.status, 0);
  reap_others(-1);
  r.processes = tree.processes_seen();
  r.size_peak = tree.size_peak_bytes();
  r.rss_peak = tree.rss_peak_bytes();
  r.samples = tree.samples();
  return r;
}

std::string tree_record(const RunOptions& o, const RunResult& r, unsigned run) {
  json::object t;
  t["schema"] = 1;
  t["kind"] = "tree";
  t["test"] = o.test;
  t["op"] = o.op;
  t["run"] = run;
  t["start_ns"] = r.start_ns;
  t["end_ns"] = r.end_ns;
  t["processes"] = r.processes;
  t["sampled_size_peak_bytes"] = r.size_peak;
  t["sampled_rss_peak_bytes"] = r.rss_peak;
  t["samples"] = r.samples;
  if (WIFSIGNALED(r.status))
    t["signal"] = WTERMSIG(r.status);
  else
    t["exit_code"] = WEXITSTATUS(r.status);
  t["aborted"] = r.aborted;
  return json::serialize(t) + "\n";
}

// One line for the user: what this run's records add up to.
void print_summary(const RunOptions& o, const std::string& path, std::streamoff from,
                   const RunResult& r, bool temporary) {
  std::ifstream in(path);
  in.seekg(from);
  std::string line, reason;
  uint64_t processes = 0, copied = 0, malloc_bytes = 0, size = r.size_peak, rss = r.rss_peak;
  double cpu = 0;
  while (std::getline(in, line)) {
    auto rec = parse_record(line, &reason);
    if (!rec) continue;
    if (auto* p = std::get_if<ProcessRecord>(&*rec)) {
      ++processes;
      cpu += p->cpu_user_s + p->cpu_sys_s;
      copied += p->copied_bytes;
      malloc_bytes += p->malloc_bytes;
      size = std::max(size, p->vm_peak_bytes);
      rss = std::max(rss, p->rss_peak_bytes);
    }
  }
  const double mib = 1024.0 * 1024.0;
  std::string label = o.test.empty() && o.op.empty() ? "" : fmt::format("{} {}: ", o.test, o.op);
  fmt::print(stderr,
             "account: {}{} process{}, wall {:.2f} s, cpu {:.2f} s, peak size {:.2f} MiB, "
             "resident {:.2f} MiB, copied {:.1f} MiB, malloc {:.1f} MiB{}{}\n",
             label, processes, processes == 1 ? "" : "es", double(r.end_ns - r.start_ns) / 1e9, cpu,
             double(size) / mib, double(rss) / mib, double(copied) / mib,
             double(malloc_bytes) / mib, r.aborted ? " (aborted: timeout)" : "",
             temporary ? "" : fmt::format(" -> {}", path));
}

}  // namespace

int command_run(const Args& args) {
  RunOptions o;
  Args option_args;
  split_command(args, &option_args, &o.command);
  po::options_description desc = run_options(o);
  po::variables_map vm;
  po::store(po::command_line_parser(option_args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  if (o.command.empty())
    throw UsageError{"run: no command given (account run [options] -- COMMAND...)"};
  if (o.interval_ms > 1000)
    throw UsageError{fmt::format("run: --interval {} is not 0-1000 ms", o.interval_ms)};
  if (o.repeat == 0) throw UsageError{"run: --repeat must be at least 1"};
  uint64_t size;
  if (!o.backtrace_min.empty() && !parse_size(o.backtrace_min.c_str(), &size))
    throw UsageError{
        fmt::format("run: --backtrace-min {} is not a size such as 64K or 10M", o.backtrace_min)};

  std::string error;
  std::string shim = find_shim(&error);
  if (shim.empty()) throw UsageError{error};

  bool temporary = o.output.empty();
  std::string path;
  if (temporary) {
    const char* tmp = getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/account-run-XXXXXX.jsonl";
    int fd = mkstemps(tmpl.data(), 6);
    if (fd < 0)
      throw UsageError{
          fmt::format("run: cannot create a temporary file: {}", std::strerror(errno))};
    close(fd);
    path = tmpl;
  } else {
    path = fs::absolute(o.output).string();
    if (std::string err = check_record_file(path); !err.empty())
      throw UsageError{fmt::format("run: cannot write {}: {}", path, err)};
  }
  std::streamoff from = 0;
  {
    struct stat st;
    if (stat(path.c_str(), &st) == 0) from = st.st_size;
  }

  const char* preload = getenv("LD_PRELOAD");
  set_env("LD_PRELOAD", preload && *preload ? shim + ":" + preload : shim);
  set_env("ACCOUNT_OUTPUT", path);
  set_env("ACCOUNT_TEST", o.test);
  set_env("ACCOUNT_OP", o.op);
  set_env("ACCOUNT_SAMPLE_MS", std::to_string(o.interval_ms));
  if (o.timeline) set_env("ACCOUNT_TIMELINE", "1");
  if (!o.backtrace_min.empty()) set_env("ACCOUNT_BACKTRACE_MIN", o.backtrace_min);

  // Orphans (daemons, the shim's samplers) come back to us, so the tree stays whole.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Like system(): Ctrl-C and Ctrl-\ go to the command, and the run is still recorded.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);

  int exit_status = 0;
  for (unsigned run = 1; run <= o.repeat; ++run) {
    RunResult r = run_once(o);
    if (std::string err = append_record_line(path, tree_record(o, r, run)); !err.empty())
      fmt::print(stderr, "account: cannot write the tree record to {}: {}\n", path, err);
    if (!o.quiet && r.started) print_summary(o, path, from, r, temporary);
    from = 0;
    if (struct stat st; stat(path.c_str(), &st) == 0) from = st.st_size;
    exit_status = WIFSIGNALED(r.status) ? 128 + WTERMSIG(r.status) : WEXITSTATUS(r.status);
    if (r.aborted) break;
  }
  if (temporary) unlink(path.c_str());
  return exit_status;
}

}  // namespace account
