#include "death_records.h"

#include <cstring>
#include <vector>

#include "backtrace_store.h"
#include "image_file.h"
#include "proc_files.h"
#include "proc_text.h"
#include "record_writer.h"
#include "timeline_store.h"

namespace account {

namespace {

// The image file's name holds its start on CLOCK_MONOTONIC.
uint64_t realtime_of_monotonic(uint64_t start_monotonic_ns) {
  uint64_t now_mono = monotonic_ns(), now_real = realtime_ns();
  return start_monotonic_ns < now_mono ? now_real - (now_mono - start_monotonic_ns) : now_real;
}

}  // namespace

DeathRecords::DeathRecords(const ImageInfo* fallback, ProcReader& reader)
    : fallback_(fallback), reader_(reader) {}

std::unique_ptr<ImageInfo> DeathRecords::fallback_info(const ImageName& id) const {
  auto info = fallback_ ? std::make_unique<ImageInfo>(*fallback_) : std::make_unique<ImageInfo>();
  read_host_name(info->identity.host, sizeof info->identity.host);
  info->identity.pid = id.pid;
  info->identity.ppid = id.ppid;
  info->identity.start_realtime_ns = realtime_of_monotonic(id.start_monotonic_ns);
  info->identity.start_monotonic_ns = id.start_monotonic_ns;
  return info;
}

DeathRecords::Outcome DeathRecords::record_image(const std::string& path, const ImageName& id,
                                                 ImageFileView* view, ProcessWatch* watch) {
  Ending ending = classify_tree_death(reader_, watch, id.pid, Writer::kSampler, heard_);
  std::unique_ptr<ImageInfo> info;
  if (const PackedInfo* packed = published_info(*view)) {
    // Copied before it is read: the image may rewrite its file at any time.
    auto copy = std::make_unique<PackedInfo>();
    memcpy(copy.get(), packed, sizeof *copy);
    info = std::make_unique<ImageInfo>();
    unpack_image_info(*copy, info.get());
    keep_run_output(info.get());
  } else {
    // Killed before it copied its identity: what the run and /proc know.
    info = fallback_info(id);
  }
  bool handed_over = false;
  if (!claim_dead_image_record(view->region, info->settings, id.pid,
                               info->identity.start_realtime_ns, &handed_over))
    return kNotClaimed;
  // The image ended on its own and left its figures: its record as it would
  // have written it, written here.
  FinalFigures handed;
  if (handed_over) {
    read_handover(view->region, &handed, &ending);
    ending.writer = Writer::kSampler;
  } else {
    ending = ending_of_dead_image(view->region, ending);
  }
  refresh_image_file(path.c_str(), view);
  // Composed from copies whose sizes are the ones checked when mapped.
  std::vector<uint64_t> timeline, backtraces;
  const ImageFileView& v = *view;
  if (v.timeline) {
    timeline.resize(timeline_mapping_size(v.timeline_capacity) / sizeof(uint64_t) + 1);
    memcpy(timeline.data(), v.timeline, timeline_mapping_size(v.timeline_capacity));
    pin_timeline_state(&reinterpret_cast<SharedTimeline*>(timeline.data())->state,
                       v.timeline_capacity);
  }
  if (v.backtraces) {
    size_t bytes = backtrace_mapping_size(v.backtrace_capacity, v.backtrace_depth);
    backtraces.resize(bytes / sizeof(uint64_t) + 1);
    memcpy(backtraces.data(), v.backtraces, bytes);
    pin_backtrace_copy(reinterpret_cast<BacktraceStore*>(backtraces.data()), v.backtrace_capacity,
                       v.backtrace_depth);
  }
  // Truncated by its process while mapped: every figure read since is a zero
  // of the guard's, none the image's. No record; its figures are unknown.
  if (image_file_lost(v)) {
    ++lost_image_files_;
    return kFileLost;
  }
  write(*info, v.region, v.timeline ? reinterpret_cast<SharedTimeline*>(timeline.data()) : nullptr,
        v.backtraces ? reinterpret_cast<BacktraceStore*>(backtraces.data()) : nullptr, *watch,
        ending, true, handed_over ? &handed : nullptr);
  return kWritten;
}

void DeathRecords::record_unset(const ImageName& id, ProcessWatch* watch, bool counted) {
  Ending ending = classify_tree_death(reader_, watch, id.pid, Writer::kSampler, heard_);
  auto region = std::make_unique<Region>();
  init_region(region.get());
  write(*fallback_info(id), region.get(), nullptr, nullptr, *watch, ending, counted);
}

// Where a death record goes is the run's choice, never the image file's: the
// image may have rewritten its copy of the output path after dropping its
// privileges (docs/security.md).
void DeathRecords::keep_run_output(ImageInfo* info) const {
  if (!fallback_) return;
  info->settings.has_output = fallback_->settings.has_output;
  copy_string(info->settings.output, sizeof info->settings.output, fallback_->settings.output);
}

void DeathRecords::write(const ImageInfo& info, const Region* region,
                         const SharedTimeline* timeline, const BacktraceStore* backtraces,
                         const ProcessWatch& watch, const Ending& ending, bool counted,
                         const FinalFigures* figures) {
  FinalFigures f = figures ? *figures : final_figures_of(watch, realtime_ns());
  RecordSource src;
  src.identity = &info.identity;
  src.settings = &info.settings;
  src.region = region;
  src.timeline = timeline;
  src.backtraces = backtraces;
  src.malloc_found = load_relaxed(&region->malloc_found);
  src.counted = counted;
  count_loss(emit(src, f, ending));
  ++written_;
}

void DeathRecords::count_loss(int err) {
  if (err == 0) return;
  ++lost_;
  if (first_write_error_ == 0) first_write_error_ = err;
}

}  // namespace account
