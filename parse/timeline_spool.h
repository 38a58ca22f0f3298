/// Timelines kept on disk while an export reads its input: a --timeline record
/// holds up to 2,048 points a figure, so 100,000 of them would not fit in
/// memory together; the aggregation keeps each record without its points and
/// the exporter reads them back one image at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "record.h"

namespace account {

class TimelineSpool {
 public:
  /// An unlinked temporary file in $TMPDIR (else /tmp). On failure the spool
  /// keeps timelines in memory (error() says why).
  TimelineSpool();
  ~TimelineSpool();
  TimelineSpool(const TimelineSpool&) = delete;
  TimelineSpool& operator=(const TimelineSpool&) = delete;

  /// Moves `t`'s points into the spool: `t` is left without points and with
  /// `spooled` set, for get().
  void put(Timeline& t);
  /// The points of a timeline put() took (`t` itself when it holds its points).
  Timeline get(const Timeline& t) const;

 private:
  struct Entry {
    uint64_t offset = 0;
    uint32_t points = 0;
    bool size = false, rss = false;
  };
  int fd_ = -1;
  uint64_t end_ = 0;
  std::vector<Entry> entries_;
  std::vector<Timeline> in_memory_;  ///< only when the file could not be made
};

}  // namespace account
