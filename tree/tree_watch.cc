#include "tree_watch.h"

#include <poll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "image_file.h"
#include "proc_events.h"
#include "proc_identity.h"
#include "record_writer.h"
#include "timeline_store.h"
#include "tree_census.h"
#include "tree_sampler.h"
#include "watch_record.h"

namespace account {

namespace {

// Writes the record of every process image of the tree as it ends.
class Watcher : public TreeObserver {
 public:
  Watcher(const TreeWatchRequest& request, TreeCensus& census, uint64_t watch_start_ns)
      : request_(request), census_(census), watch_start_ns_(watch_start_ns) {
    region_ = std::make_unique<Region>();
  }

  void image_found(pid_t pid, const ProcessWatch& w) override {
    bool exec = images_.count(pid) != 0;
    Image& image = images_[pid];
    image = Image{};
    image.info = std::make_unique<ImageInfo>();
    Identity& id = image.info->identity;
    image.first_seen_mono = monotonic_ns();  // before /proc is read
    read_identity(pid, w.cpu, &id);
    if (exec) id.start_realtime_ns = realtime_ns();  // the new image starts now
    if (id.argc == 0) {
      // A zombie (or a process in the middle of an exec) shows no argv; a
      // child that has not exec'd runs its parent's program; after an exec
      // only its name may be left.
      auto parent = images_.find(w.cpu.ppid);
      if (exec || parent == images_.end() || !parent->second.info) {
        id.set_argv(w.cpu.comm, std::strlen(w.cpu.comm) + 1);
        id.argc = 1;
      } else {
        const Identity& from = parent->second.info->identity;
        if (!id.exe_len) id.set_exe(from.exe(), from.exe_len);
        id.set_argv(from.argv(), from.argv_len);
        id.argc = from.argc;
      }
    }
    Settings& settings = image.info->settings;
    settings.has_output = true;
    copy_string(settings.test, sizeof settings.test, request_.test.c_str());
    copy_string(settings.op, sizeof settings.op, request_.op.c_str());
    if (request_.timeline) {
      image.timeline_storage.resize(timeline_mapping_size(request_.timeline_points));
      auto* t = reinterpret_cast<SharedTimeline*>(image.timeline_storage.data());
      timeline_init(&t->state, request_.timeline_points);
      t->interval_ms = request_.interval_ms;
    }
    if (pid == request_.pid && !exec) {
      root_start_ns_ = id.start_realtime_ns;
      const char* a = id.argv();
      for (int i = 0; i < id.argc; ++i, a += std::strlen(a) + 1) root_argv_.emplace_back(a);
    }
    census_.found(pid, w.cpu, id.start_realtime_ns >= watch_start_ns_);
  }

  void image_sampled(pid_t pid, const MemoryNow& now) override {
    auto it = images_.find(pid);
    if (it == images_.end() || it->second.timeline_storage.empty()) return;
    auto* t = reinterpret_cast<SharedTimeline*>(it->second.timeline_storage.data());
    timeline_add(&t->state, t->points,
                 timeline_point(it->second.first_seen_mono, monotonic_ns(), now));
  }

  void image_ended(pid_t pid, const ProcessWatch& w, const SampledPeaks& peaks,
                   const Ending& ending) override {
    auto it = images_.find(pid);
    if (it == images_.end()) return;
    census_.reading(pid, w.cpu);
    if (ending.kind != EndKind::kExec && ending.kind != EndKind::kRunning) {
      census_.ended(pid);
      last_end_ns_ = realtime_ns();
    }
    if (ending.kind == EndKind::kRunning) ++left_running_;
    if (pid == request_.pid && ending.kind != EndKind::kExec && ending.kind != EndKind::kRunning) {
      root_ending_ = ending;
      root_ended_ = true;
    }
    ++records_;
    if (!request_.write(compose(it->second, w, peaks, ending))) ++write_failures_;
    if (ending.kind != EndKind::kExec) images_.erase(it);
  }

  void image_running(pid_t pid, const ProcessWatch& w, const SampledPeaks& peaks) override {
    auto it = images_.find(pid);
    if (it == images_.end()) return;
    census_.reading(pid, w.cpu);  // what it reaped so far: the snapshot's unseen_cpu_s
    Ending running;
    running.kind = EndKind::kRunning;
    running.writer = Writer::kWatch;
    running_records_ += compose(it->second, w, peaks, running);
  }

  // The "running" records image_running composed since the last call.
  std::string take_running_records() { return std::exchange(running_records_, std::string()); }

  // True when the image of `pid` was first read after `monotonic_ns` (an
  // exec then): its identity is already the new program's.
  bool read_after(pid_t pid, uint64_t monotonic_ns) const {
    auto it = images_.find(pid);
    return it != images_.end() && it->second.first_seen_mono > monotonic_ns;
  }

  uint64_t records() const { return records_; }
  uint64_t write_failures() const { return write_failures_; }
  uint64_t left_running() const { return left_running_; }
  uint64_t last_end_ns() const { return last_end_ns_; }
  uint64_t root_start_ns() const { return root_start_ns_; }
  const std::vector<std::string>& root_argv() const { return root_argv_; }
  // How the root ended, when it did and that is known.
  bool root_status(int* wait_status) const {
    if (!root_ended_ || !root_ending_.code_known) return false;
    *wait_status = root_ending_.kind == EndKind::kExit ? root_ending_.code << 8 : root_ending_.code;
    return true;
  }

 private:
  struct Image {
    std::unique_ptr<ImageInfo> info;
    std::vector<char> timeline_storage;
    uint64_t first_seen_mono = 0;
  };

  std::string compose(const Image& image, const ProcessWatch& w, const SampledPeaks& peaks,
                      const Ending& ending) {
    // Nothing is counted inside the process: an empty Region holds the samples.
    std::memset(static_cast<void*>(region_.get()), 0, sizeof(Region));
    init_region(region_.get());
    region_->sampled = peaks;
    const SharedTimeline* timeline =
        image.timeline_storage.empty()
            ? nullptr
            : reinterpret_cast<const SharedTimeline*>(image.timeline_storage.data());
    return compose_watch_record(*image.info, region_.get(), timeline, watch_start_ns_, w, ending,
                                realtime_ns());
  }

  const TreeWatchRequest& request_;
  TreeCensus& census_;
  uint64_t watch_start_ns_;
  std::unique_ptr<Region> region_;
  std::map<pid_t, Image> images_;  // live images by pid
  std::vector<std::string> root_argv_;
  std::string running_records_;
  Ending root_ending_;
  bool root_ended_ = false;
  uint64_t records_ = 0, write_failures_ = 0, left_running_ = 0, last_end_ns_ = 0;
  uint64_t root_start_ns_ = 0;
};

// The tree record of the watch as of end_ns (its end, or now for a snapshot);
// *tree gets its figures.
std::string tree_record(const TreeWatchRequest& request, uint64_t watch_start_ns, uint64_t end_ns,
                        const TreeSampler& sampler, TreeCensus& census, const Watcher& watcher,
                        const ProcEvents* events, TreeFigures* tree) {
  census.find_unreaped();
  tree->test = request.test.c_str();
  tree->op = request.op.c_str();
  tree->run = 1;
  // The window of the report's row: from the root's start (its record's CPU
  // is its whole life's) to the end of the watch.
  tree->start_ns = watcher.root_start_ns() ? watcher.root_start_ns() : watch_start_ns;
  tree->end_ns = end_ns;
  // When the last process ended; the end of the watch if some still run.
  bool running = watcher.left_running() || sampler.live_processes() > 0;
  tree->tree_end_ns = running || !watcher.last_end_ns() ? end_ns : watcher.last_end_ns();
  tree->watch_start_ns = watch_start_ns;
  tree->processes = census.processes();
  tree->peaks = sampler.peaks();
  tree->have_status = watcher.root_status(&tree->wait_status);
  tree->stop_signals = request.stop_signals.data();
  tree->stop_signal_count = int(request.stop_signals.size());
  std::vector<const char*> argv;
  for (const std::string& a : watcher.root_argv()) argv.push_back(a.c_str());
  tree->command = argv.data();
  tree->command_argc = int(argv.size());
  if (events && !events->lost()) {
    tree->unseen_processes = census.unseen_exact();
    tree->unseen_source = "proc_connector";
  } else {
    tree->unseen_processes = census.unseen_bound(loadavg_last_pid(), system_pid_max());
    tree->unseen_source = "loadavg";
  }
  tree->unseen_cpu_ns = census.unseen_cpu_ns();
  std::string line(64 * 1024 + 6 * 16 * 1024, '\0');
  TextBuffer out(line.data(), line.size());
  compose_tree_record(out, *tree);
  line.resize(out.size());
  tree->command = nullptr;  // argv ends here
  tree->command_argc = 0;
  return line;
}

}  // namespace

std::optional<TreeWatchOutcome> watch_tree(const TreeWatchRequest& request, std::string* error) {
  // Subscribe before the first walk, so no fork falls between the two.
  std::unique_ptr<ProcEvents> events;
  if (request.proc_connector) {
    events = std::make_unique<ProcEvents>();
    if (!events->ok()) events.reset();
  }
  int rootfd = int(syscall(SYS_pidfd_open, request.pid, 0));
  if (rootfd < 0) {
    *error = std::strerror(errno);
    return std::nullopt;
  }
  close(rootfd);

  uint64_t watch_start_ns = realtime_ns();
  TreeCensus census(loadavg_last_pid());
  Watcher watcher(request, census, watch_start_ns);
  TreeSampler sampler(request.pid);
  sampler.watch_from_outside(&watcher);
  // Read at every wake-up (events wake the loop), so before any lookup.
  HeardExits heard;
  if (events) sampler.hear_exits(&heard);

  auto drain = [&] {
    ProcEvent e;
    while (events && events->next(&e)) {
      if (e.kind == ProcEvent::kFork) {
        if (census.fork(e.parent, e.pid)) {
          heard.forked(e.pid);
          sampler.adopt(e.pid);
        }
      } else if (e.kind == ProcEvent::kExec) {
        if (census.member(e.pid) && !watcher.read_after(e.pid, e.monotonic_ns))
          sampler.image_replaced(e.pid);
      } else if (census.member(e.pid)) {
        heard.exited(e.pid, e.exit_status);
        sampler.exiting(e.pid);
        census.exit(e.pid);
      }
    }
  };

  TreeWatchOutcome outcome;
  Ticker ticker(request.interval_ms, false);
  bool snapshots = request.snapshot_every_ms && request.snapshot;
  Ticker snapshot_ticker(snapshots ? request.snapshot_every_ms : 1);
  sampler.tick();  // the tree as it stands: its members
  drain();
  auto watched = [&] {
    return !sampler.root_ended() || (!request.root_only_end && sampler.live_processes() > 0);
  };
  pollfd fds[3] = {{sampler.wait_fd(), POLLIN, 0},
                   {events ? events->fd() : -1, POLLIN, 0},
                   {request.stop_fd, POLLIN, 0}};
  sampling_loop(ticker, fds, 3, watched, [&](int ready, bool due) {
    drain();
    if (ready > 0 && (fds[2].revents & POLLIN)) {
      outcome.stopped = true;
      return false;
    }
    sampler.handle_ended();
    if (due) {
      sampler.tick();
      drain();
      if (snapshots && snapshot_ticker.due()) {
        sampler.report_running();
        std::string records = watcher.take_running_records();
        TreeFigures so_far;
        records += tree_record(request, watch_start_ns, realtime_ns(), sampler, census, watcher,
                               events.get(), &so_far);
        request.snapshot(records);
      }
    }
    return true;
  });
  drain();
  sampler.stop_watching();  // what still runs: "running" records

  uint64_t end_ns = realtime_ns();
  TreeFigures tree;
  std::string line =
      tree_record(request, watch_start_ns, end_ns, sampler, census, watcher, events.get(), &tree);
  if (!request.write(line)) ++outcome.write_failures;

  outcome.records = watcher.records();
  outcome.processes = tree.processes;
  outcome.unseen_processes = tree.unseen_processes;
  outcome.unseen_cpu_s = double(tree.unseen_cpu_ns) / 1e9;
  outcome.unseen_source = tree.unseen_source;
  outcome.samples = tree.peaks.samples;
  outcome.size_peak_bytes = tree.peaks.size_bytes;
  outcome.rss_peak_bytes = tree.peaks.rss_bytes;
  outcome.write_failures += watcher.write_failures();
  outcome.seconds = double(end_ns - watch_start_ns) / 1e9;
  outcome.left_running = watcher.left_running();
  return outcome;
}

}  // namespace account
