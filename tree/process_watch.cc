#include "process_watch.h"

#include <poll.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "image_file.h"
#include "proc_identity.h"
#include "record_writer.h"
#include "sampling.h"
#include "timeline_store.h"
#include "watch_record.h"

namespace account {

std::optional<WatchOutcome> watch_process(const WatchRequest& request, std::string* error) {
  ProcReader& proc = system_proc();
  int pidfd = int(syscall(SYS_pidfd_open, request.pid, 0));
  ProcessWatch w;
  w.handle.pid = request.pid;
  w.handle.pidfd = pidfd;
  if (pidfd < 0 || !proc.open(&w.handle)) {
    *error = std::strerror(errno);
    if (pidfd >= 0) close(pidfd);
    return std::nullopt;
  }
  auto info = std::make_unique<ImageInfo>();
  proc.stat(&w.handle, &w.cpu);
  read_identity(request.pid, w.cpu, &info->identity);
  Settings& settings = info->settings;
  settings.has_output = true;
  copy_string(settings.test, sizeof settings.test, request.test.c_str());
  copy_string(settings.op, sizeof settings.op, request.op.c_str());

  // Nothing is counted inside the process: an empty Region holds the samples.
  auto region = std::make_unique<Region>();
  init_region(region.get());
  std::vector<char> timeline_storage;
  SharedTimeline* timeline = nullptr;
  if (request.timeline) {
    timeline_storage.resize(timeline_mapping_size(request.timeline_points));
    timeline = reinterpret_cast<SharedTimeline*>(timeline_storage.data());
    timeline_init(&timeline->state, request.timeline_points);
    timeline->interval_ms = request.interval_ms;
  }

  WatchOutcome outcome;
  uint64_t watch_start_ns = realtime_ns();
  uint64_t watch_start_mono = monotonic_ns();
  // The record as of now, with the CPU and kernel peaks last read.
  auto compose = [&](const Ending& ending) {
    uint64_t end_ns = realtime_ns();
    outcome.seconds = double(end_ns - watch_start_ns) / 1e9;
    return compose_watch_record(*info, region.get(), timeline, watch_start_ns, w, ending, end_ns);
  };
  Ending running;
  running.kind = EndKind::kRunning;
  running.writer = Writer::kWatch;
  Ticker ticker(request.interval_ms);
  bool snapshots = request.snapshot_every_ms && request.snapshot;
  Ticker snapshot_ticker(snapshots ? request.snapshot_every_ms : 1);
  Ending ending;
  ending.writer = Writer::kWatch;
  pollfd fds[2] = {{pidfd, POLLIN, 0}, {request.stop_fd, POLLIN, 0}};
  sampling_loop(ticker, fds, request.stop_fd >= 0 ? 2 : 1, always, [&](int ready, bool due) {
    if (ready > 0 && (fds[0].revents & POLLIN)) {
      ending = classify_death(proc, &w, Writer::kWatch);
      return false;
    }
    if (ready > 0 && (fds[1].revents & POLLIN)) {
      read_final(proc, &w);
      ending = running;
      return false;
    }
    MemoryNow now;
    if (!due || !sample_tick(proc, &w, &region->sampled, &now)) return true;
    if (timeline) {
      timeline_add(&timeline->state, timeline->points,
                   timeline_point(watch_start_mono, monotonic_ns(), now));
    }
    if (snapshots && snapshot_ticker.due()) {
      read_final(proc, &w);
      request.snapshot(compose(running));
    }
    return true;
  });
  close(pidfd);
  proc.close(&w.handle);

  std::string line = compose(ending);
  outcome.record = std::move(line);
  outcome.samples = region->sampled.samples;
  outcome.size_peak_bytes = region->sampled.size_bytes;
  outcome.rss_peak_bytes = region->sampled.rss_bytes;
  return outcome;
}

}  // namespace account
