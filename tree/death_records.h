/// The record of an image whose process died without writing its own
/// (SIGKILL, a crash, an OOM kill), written by the tree sampler from the
/// image's file and what it read of the process; and the count of records
/// that could not be written.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "heard_exits.h"
#include "proc_reader.h"
#include "record_writer.h"
#include "sampling.h"

namespace account {

struct ImageInfo;
struct ImageName;
struct ImageFileView;
struct Region;
struct SharedTimeline;
struct BacktraceStore;

class DeathRecords {
 public:
  /// `fallback`: the run's identity and settings (at least its output path),
  /// for an image that died before it could copy its own; null outside
  /// account run (tests of the sampler alone).
  DeathRecords(const ImageInfo* fallback, ProcReader& reader);

  enum Outcome {
    kWritten,     // its record is written (or lost: counted)
    kNotClaimed,  // the image, or another writer, has its record already
    kFileLost,    // its process truncated the file: no record, figures unknown
  };
  /// The image mapped in `view` (its file `path`, its name `id`) has ended
  /// with its record unwritten; `watch` holds what was read of its process.
  Outcome record_image(const std::string& path, const ImageName& id, ImageFileView* view,
                       ProcessWatch* watch);
  /// An image killed between creating its file and setting it up: a record
  /// with nothing counted (`counted`: its calls were 0). Or one killed while
  /// it ran standalone (its file a marker, kStandaloneMarker): what it counted
  /// died with it, and the record says so (`counted` false: unknown, not 0).
  void record_unset(const ImageName& id, ProcessWatch* watch, bool counted);

  /// Where the kernel's process events are read: how a process reaped
  /// before the sampler looked ended.
  void hear_exits(HeardExits* heard) { heard_ = heard; }

  /// A record lost with errno `err` (0: none).
  void count_loss(int err);

  uint64_t written() const { return written_; }
  uint64_t lost() const { return lost_; }
  uint64_t lost_image_files() const { return lost_image_files_; }
  int first_write_error() const { return first_write_error_; }

 private:
  std::unique_ptr<ImageInfo> fallback_info(const ImageName& id) const;
  void keep_run_output(ImageInfo* info) const;
  void write(const ImageInfo& info, const Region* region, const SharedTimeline* timeline,
             const BacktraceStore* backtraces, const ProcessWatch& watch, const Ending& ending,
             bool counted = true, const FinalFigures* figures = nullptr);

  const ImageInfo* fallback_;
  ProcReader& reader_;
  HeardExits* heard_ = nullptr;
  uint64_t written_ = 0;
  uint64_t lost_ = 0;
  uint64_t lost_image_files_ = 0;
  int first_write_error_ = 0;
};

}  // namespace account
