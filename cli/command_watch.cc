// account watch: options, then tree/process_watch.h, then the record.
#include <fmt/format.h>
#include <signal.h>
#include <sys/signalfd.h>

#include <boost/program_options.hpp>
#include <iostream>
#include <memory>
#include <optional>

#include "commands.h"
#include "option_values.h"
#include "output_probe.h"
#include "process_watch.h"
#include "record_file.h"
#include "settings.h"
#include "tree_watch.h"
#include "watch_metrics.h"
#include "sampling.h"

namespace account {

namespace po = boost::program_options;

namespace {

struct WatchOptions {
  int pid = 0;
  std::string output, test, op;
  unsigned interval_ms = kDefaultIntervalMs;
  bool timeline = false;
  unsigned timeline_points = 2048;
  // As typed: checked below, never wrapped by an unsigned parse.
  std::string pid_text, interval_text, timeline_points_text, every_text;
  bool tree = false, root_only_end = false;
  std::string textfile_dir, push_url;
  unsigned every_s = 15;
  std::vector<std::string> stop_signal_texts;
  std::vector<int> stop_signals;  // the watched root's normal stop (the tree record's)
};

// --textfile and --push: checked before the watch starts; nullopt without them.
std::optional<WatchMetricsOptions> metrics_options(const WatchOptions& o,
                                                   const po::variables_map& vm) {
  if (o.textfile_dir.empty() && o.push_url.empty()) {
    if (!vm["every"].defaulted()) throw UsageError{"watch: --every needs --textfile or --push"};
    return std::nullopt;
  }
  WatchMetricsOptions m;
  m.pid = o.pid;
  m.textfile_dir = o.textfile_dir;
  if (!o.textfile_dir.empty()) {
    if (std::string err = probe_textfile_dir(o.textfile_dir); !err.empty())
      throw UsageError{fmt::format("watch: cannot write --textfile {}: {}", o.textfile_dir, err)};
  }
  if (!o.push_url.empty()) {
    std::string err;
    m.push = parse_push_url(o.push_url, &err);
    if (!m.push) throw UsageError{fmt::format("watch: --push {}: {}", o.push_url, err)};
  }
  // The records' own host name: the instance label names the same machine.
  char host[kHostCapacity];
  read_host_name(host, sizeof host);
  m.hostname = host;
  return m;
}

// --tree: records go out as each process ends, the tree record last.
int watch_whole_tree(const WatchOptions& o, const WatchRequest& one, WatchMetrics* metrics) {
  TreeWatchRequest request;
  request.pid = one.pid;
  request.test = one.test;
  request.op = one.op;
  request.interval_ms = one.interval_ms;
  request.timeline = one.timeline;
  request.timeline_points = one.timeline_points;
  request.root_only_end = o.root_only_end;
  request.stop_signals = o.stop_signals;
  request.stop_fd = one.stop_fd;
  request.write = [&](const std::string& line) {
    if (metrics) metrics->record_written(line);
    if (o.output.empty()) return bool(std::cout << line << std::flush);
    return append_record_line(o.output, line).empty();
  };
  if (metrics) {
    request.snapshot_every_ms = one.snapshot_every_ms;
    request.snapshot = [&](const std::string& records) { metrics->snapshot(records); };
  }
  std::string error;
  std::optional<TreeWatchOutcome> w = watch_tree(request, &error);
  if (metrics) metrics->finish();
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
      "interval", po::value(&o.interval_text)->default_value(std::to_string(kDefaultIntervalMs)),
      "sampling interval, 1-1000 ms (a tick may come up to one interval, at most 5 ms, late)")(
      "timeline", po::bool_switch(&o.timeline), "keep the sampled time series in the record")(
      "timeline-points", po::value(&o.timeline_points_text)->default_value("2048"),
      "points the timeline keeps (16-65536); the resolution halves when full")(
      "tree", po::bool_switch(&o.tree),
      "watch PID and every process it forks: a record each and one tree record")(
      "root-only-end", po::bool_switch(&o.root_only_end),
      "with --tree: stop when PID ends (default: when the last process of the tree ends)")(
      "test", po::value(&o.test), "test label for the record")("op", po::value(&o.op),
                                                               "operation label for the record")(
      "textfile", po::value(&o.textfile_dir),
      "keep DIR/account-watch-PID.prom up to date for node_exporter's textfile collector")(
      "push", po::value(&o.push_url),
      "push the metrics to the Prometheus Pushgateway at URL (http://HOST:PORT)")(
      "every", po::value(&o.every_text)->default_value("15"),
      "with --textfile or --push: publish every SECONDS (1-86400)")(
      "stop-signal", po::value(&o.stop_signal_texts)->composing(),
      "with --tree: SIG (repeatable) to the watched root is its normal stop, the watch reads "
      "stopped, not failed (default: TERM, INT, HUP; none: every signal is a failure)");
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
  o.every_s = unsigned(count_option("watch", "--every", o.every_text, 1, 86400, "s"));
  // How a server stops (SIGTERM from a service manager, Ctrl-C, a closed terminal).
  if (o.stop_signal_texts.empty()) o.stop_signal_texts = {"TERM", "INT", "HUP"};
  o.stop_signals = signals_option("watch", "--stop-signal", o.stop_signal_texts);

  // Before -o is probed (which creates it): a bad --textfile or --push leaves nothing.
  std::optional<WatchMetricsOptions> metrics_wanted = metrics_options(o, vm);
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
  // Its threads start now, with the stop signals blocked as in this one: only
  // the signalfd below takes them.
  std::unique_ptr<WatchMetrics> metrics;
  if (metrics_wanted) metrics = std::make_unique<WatchMetrics>(std::move(*metrics_wanted));
  WatchRequest request;
  request.pid = o.pid;
  request.test = o.test;
  request.op = o.op;
  request.interval_ms = o.interval_ms;
  request.timeline = o.timeline;
  request.timeline_points = o.timeline_points;
  request.stop_fd = signalfd(-1, &stop, SFD_CLOEXEC);
  if (metrics) {
    request.snapshot_every_ms = o.every_s * 1000;
    request.snapshot = [&](const std::string& record) { metrics->snapshot(record); };
  }
  if (o.tree) return watch_whole_tree(o, request, metrics.get());
  std::string error;
  std::optional<WatchOutcome> watched = watch_process(request, &error);
  if (!watched) throw UsageError{fmt::format("watch: no process {} ({})", o.pid, error)};
  const std::string& line = watched->record;
  if (metrics) {
    metrics->record_written(line);
    metrics->finish();  // the final textfile and push (2 s at most)
  }
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
