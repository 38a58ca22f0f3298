// account watch: the sampler alone, for a process started without the shim (a
// server, a JVM). It samples /proc/PID every interval and writes one record when
// the process ends or when watch is interrupted.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/program_options.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <vector>

#include "commands.h"
#include "proc_files.h"
#include "proc_text.h"
#include "record_file.h"
#include "timeline.h"
#include "wall_clock.h"

namespace account {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

struct WatchOptions {
  int pid = 0;
  std::string output, test, op;
  unsigned interval_ms = 5;
  bool timeline = false;
  unsigned timeline_points = 2048;
};

std::vector<std::string> read_cmdline(int pid) {
  std::istringstream in(read_proc_text(fmt::format("/proc/{}/cmdline", pid)));
  std::vector<std::string> argv;
  std::string arg;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv;
}

// A start time in clock ticks after boot (/proc/PID/stat) on the realtime clock.
uint64_t realtime_of_boot_ticks(uint64_t ticks) {
  timespec boot, real;
  clock_gettime(CLOCK_BOOTTIME, &boot);
  clock_gettime(CLOCK_REALTIME, &real);
  double boot_at =
      double(real.tv_sec) + real.tv_nsec / 1e9 - (double(boot.tv_sec) + boot.tv_nsec / 1e9);
  return uint64_t((boot_at + double(ticks) / double(sysconf(_SC_CLK_TCK))) * 1e9);
}

}  // namespace

int command_watch(const Args& args) {
  WatchOptions o;
  po::options_description desc("account watch --pid PID [options]");
  desc.add_options()("help,h", "this help")("pid,p", po::value(&o.pid)->required(),
                                            "the process to watch")(
      "output,o", po::value(&o.output), "append the record to FILE (default: standard output)")(
      "interval", po::value(&o.interval_ms)->default_value(5), "sampling interval, 1-1000 ms")(
      "timeline", po::bool_switch(&o.timeline), "keep the sampled time series in the record")(
      "timeline-points", po::value(&o.timeline_points)->default_value(2048),
      "points the timeline keeps (16-65536); the resolution halves when full")(
      "test", po::value(&o.test), "test label for the record")("op", po::value(&o.op),
                                                               "operation label for the record");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  po::notify(vm);
  if (o.interval_ms < 1 || o.interval_ms > 1000)
    throw UsageError{fmt::format("watch: --interval {} is not 1-1000 ms", o.interval_ms)};
  if (o.timeline_points < 16 || o.timeline_points > 65536)
    throw UsageError{fmt::format("watch: --timeline-points {} is not 16-65536", o.timeline_points)};

  int pidfd = int(syscall(SYS_pidfd_open, o.pid, 0));
  int statm = open_proc_file(o.pid, "statm");
  int stat = open_proc_file(o.pid, "stat");
  int status = open_proc_file(o.pid, "status");
  if (pidfd < 0 || statm < 0)
    throw UsageError{fmt::format("watch: no process {} ({})", o.pid, std::strerror(errno))};
  if (!o.output.empty()) {
    if (std::string err = check_record_file(o.output); !err.empty())
      throw UsageError{fmt::format("watch: cannot write {}: {}", o.output, err)};
  }
  std::error_code ec;
  std::string exe = std::filesystem::read_symlink(fmt::format("/proc/{}/exe", o.pid), ec).string();
  std::vector<std::string> argv = read_cmdline(o.pid);
  CpuAndExit cpu;
  read_stat(stat, &cpu);
  uint64_t start_ns = realtime_of_boot_ticks(cpu.start_ticks);
  uint64_t watch_start_ns = realtime_ns();
  auto watch_start = std::chrono::steady_clock::now();

  // Ctrl-C or a TERM ends the watch, not the watched process.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop, nullptr);
  int sigfd = signalfd(-1, &stop, SFD_CLOEXEC);

  TimelineState tl_state{};
  std::vector<TimelinePoint> points(o.timeline ? o.timeline_points : 0);
  if (o.timeline) timeline_init(&tl_state, o.timeline_points);
  uint64_t size_peak = 0, rss_peak = 0, samples = 0;
  MemoryPeaks peaks;
  read_status_peaks(status, &peaks);
  bool died = false, interrupted = false;
  for (uint64_t tick = 0;; ++tick) {
    pollfd fds[2] = {{pidfd, POLLIN, 0}, {sigfd, POLLIN, 0}};
    int ready = poll(fds, 2, tick == 0 ? 0 : int(o.interval_ms));
    if (ready > 0 && (fds[0].revents & POLLIN)) {
      died = true;
      break;
    }
    if (ready > 0 && (fds[1].revents & POLLIN)) {
      interrupted = true;
      break;
    }
    MemoryNow now;
    if (!read_statm(statm, &now)) continue;
    size_peak = std::max(size_peak, now.size_bytes);
    rss_peak = std::max(rss_peak, now.resident_bytes);
    ++samples;
    if (o.timeline) {
      TimelinePoint p{};
      p.t_us = uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - watch_start)
                            .count());
      p.size_bytes = now.size_bytes;
      p.rss_bytes = now.resident_bytes;
      timeline_add(&tl_state, points.data(), p);
    }
    if (tick % 20 == 0) {
      read_stat(stat, &cpu);
      read_status_peaks(status, &peaks);
    }
  }
  json::object r;
  r["schema"] = 1;
  r["kind"] = "process";
  r["pid"] = o.pid;
  CpuAndExit last;
  bool zombie = died && read_stat(stat, &last) && last.state == 'Z';
  if (!died) {
    read_stat(stat, &last);
    read_status_peaks(status, &peaks);
  }
  if (last.valid) cpu = last;
  r["ppid"] = cpu.ppid;
  r["exe"] = exe;
  json::array jargv;
  for (auto& a : argv) jargv.emplace_back(a);
  r["argv"] = std::move(jargv);
  r["test"] = o.test;
  r["op"] = o.op;
  r["start_ns"] = start_ns;
  r["watch_start_ns"] = watch_start_ns;
  r["end_ns"] = realtime_ns();
  r["cpu_user_s"] = double(cpu.user_ns) / 1e9;
  r["cpu_sys_s"] = double(cpu.sys_ns) / 1e9;
  // Watched from outside: nothing was counted inside the process.
  for (const char* k : {"malloc_bytes", "malloc_calls", "free_calls", "realloc_copied_bytes",
                        "copied_bytes", "copied_calls", "heap_peak_bytes"})
    r[k] = 0;
  r["counted"] = false;
  r["vm_peak_bytes"] = std::max(peaks.vm_peak_bytes, size_peak);
  r["rss_peak_bytes"] = std::max(peaks.rss_peak_bytes, rss_peak);
  r["sampled_size_peak_bytes"] = size_peak;
  r["sampled_rss_peak_bytes"] = rss_peak;
  r["samples"] = samples;
  if (interrupted) {
    r["end"] = "running";
  } else if (zombie && WIFSIGNALED(last.exit_code)) {
    r["end"] = WTERMSIG(last.exit_code) == SIGKILL ? "killed" : "signal";
    r["signal"] = WTERMSIG(last.exit_code);
  } else if (zombie) {
    r["end"] = "exit";
    r["exit_code"] = WEXITSTATUS(last.exit_code);
  } else {
    r["end"] = "exit";  // reaped before we could read how: the status is unknown
  }
  r["written_by"] = "watch";
  if (o.timeline) {
    json::object t;
    t["interval_ms"] = o.interval_ms;
    t["samples_per_point"] = tl_state.stride;
    json::array t_ms, size, rss;
    for (uint32_t i = 0; i < tl_state.count; ++i) {
      t_ms.emplace_back(double(points[i].t_us) / 1000.0);
      size.emplace_back(points[i].size_bytes);
      rss.emplace_back(points[i].rss_bytes);
    }
    t["t_ms"] = std::move(t_ms);
    t["size"] = std::move(size);
    t["rss"] = std::move(rss);
    r["timeline"] = std::move(t);
  }
  std::string line = json::serialize(r) + "\n";
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
             o.pid, double(r["end_ns"].as_uint64() - watch_start_ns) / 1e9, samples,
             double(size_peak) / 1048576.0, double(rss_peak) / 1048576.0, o.output);
  return 0;
}

}  // namespace account
