// account watch: options, then sampler/process_watch.h, then the record.
#include <fmt/format.h>
#include <signal.h>
#include <sys/signalfd.h>

#include <boost/program_options.hpp>
#include <iostream>
#include <optional>

#include "commands.h"
#include "option_values.h"
#include "output_probe.h"
#include "process_watch.h"
#include "record_file.h"
#include "tree_watch.h"

namespace account {

namespace po = boost::program_options;

namespace {

struct WatchOptions {
  int pid = 0;
  std::string output, test, op;
  unsigned interval_ms = 5;
  bool timeline = false;
  unsigned timeline_points = 2048;
  // As typed: checked below, never wrapped by an unsigned parse.
  std::string pid_text, interval_text, timeline_points_text;
  bool tree = false, root_only_end = false;
};

// --tree: records go out as each process ends, the tree record last.
int watch_whole_tree(const WatchOptions& o, const WatchRequest& one) {
  TreeWatchRequest request;
  request.pid = one.pid;
  request.test = one.test;
  request.op = one.op;
  request.interval_ms = one.interval_ms;
  request.timeline = one.timeline;
  request.timeline_points = one.timeline_points;
  request.root_only_end = o.root_only_end;
  request.stop_fd = one.stop_fd;
  request.write = [&](const std::string& line) {
    if (o.output.empty()) return bool(std::cout << line << std::flush);
    return append_record_line(o.output, line).empty();
  };
  std::string error;
  std::optional<TreeWatchOutcome> w = watch_tree(request, &error);
  if (!w) throw UsageError{fmt::format("watch: no process {} ({})", o.pid, error)};
  fmt::print(stderr,
             "account: watched the tree of {} for {:.2f} s: {} processes ({} still running), "
             "{} unseen ({}, cpu {:.2f} s), peak size {:.2f} MiB, resident {:.2f} MiB -> {}\n",
             o.pid, w->seconds, w->processes, w->left_running, w->unseen_processes,
             w->unseen_source, w->unseen_cpu_s, double(w->size_peak_bytes) / 1048576.0,
             double(w->rss_peak_bytes) / 1048576.0, o.output.empty() ? "stdout" : o.output);
  if (w->write_failures) {
    fmt::print(stderr, "account: watch: {} records could not be written to {}\n", w->write_failures,
               o.output);
    return 1;
  }
  return 0;
}

// The kernel's largest pid (PID_MAX_LIMIT on 64-bit).
constexpr uint64_t kPidMax = 4194304;

}  // namespace

int command_watch(const Args& args) {
  WatchOptions o;
  po::options_description desc("account watch --pid PID [options]");
  desc.add_options()("help,h", "this help")("pid,p", po::value(&o.pid_text)->required(),
                                            "the process to watch")(
      "output,o", po::value(&o.output), "append the record to FILE (default: standard output)")(
      "interval", po::value(&o.interval_text)->default_value("5"), "sampling interval, 1-1000 ms")(
      "timeline", po::bool_switch(&o.timeline), "keep the sampled time series in the record")(
      "timeline-points", po::value(&o.timeline_points_text)->default_value("2048"),
      "points the timeline keeps (16-65536); the resolution halves when full")(
      "tree", po::bool_switch(&o.tree),
      "watch PID and every process it forks: a record each and one tree record")(
      "root-only-end", po::bool_switch(&o.root_only_end),
      "with --tree: stop when PID ends (default: when the last process of the tree ends)")(
      "test", po::value(&o.test), "test label for the record")("op", po::value(&o.op),
                                                               "operation label for the record");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  po::notify(vm);
  o.pid = int(count_option("watch", "--pid", o.pid_text, 1, kPidMax));
  o.interval_ms = unsigned(count_option("watch", "--interval", o.interval_text, 1, 1000, "ms"));
  o.timeline_points =
      unsigned(count_option("watch", "--timeline-points", o.timeline_points_text, 16, 65536));

  if (!o.output.empty()) {
    if (std::string err = probe_record_file(o.output); !err.empty())
      throw UsageError{fmt::format("watch: cannot write -o {}: {}", o.output, err)};
  }
  // Ctrl-C or a TERM ends the watch, not the watched process.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, nullptr);
  WatchRequest request;
  request.pid = o.pid;
  request.test = o.test;
  request.op = o.op;
  request.interval_ms = o.interval_ms;
  request.timeline = o.timeline;
  request.timeline_points = o.timeline_points;
  request.stop_fd = signalfd(-1, &stop, SFD_CLOEXEC);
  if (o.tree) return watch_whole_tree(o, request);
  std::string error;
  std::optional<WatchOutcome> watched = watch_process(request, &error);
  if (!watched) throw UsageError{fmt::format("watch: no process {} ({})", o.pid, error)};
  const std::string& line = watched->record;
  if (o.output.empty()) {
    std::cout << line << std::flush;
    return 0;
  }
  if (std::string err = append_record_line(o.output, line); !err.empty()) {
    fmt::print(stderr, "account: watch: cannot write {}: {}\n", o.output, err);
    return 1;
  }
  fmt::print(stderr,
             "account: watched {} for {:.2f} s: {} samples, peak size {:.2f} MiB, resident {:.2f} "
             "MiB -> {}\n",
             o.pid, watched->seconds, watched->samples,
             double(watched->size_peak_bytes) / 1048576.0,
             double(watched->rss_peak_bytes) / 1048576.0, o.output);
  return 0;
}

}  // namespace account
