#include "watch_record.h"

#include "text_buffer.h"

namespace account {

std::string compose_watch_record(const ImageInfo& info, const Region* region,
                                 const SharedTimeline* timeline, uint64_t watch_start_ns,
                                 const ProcessWatch& w, const Ending& ending,
                                 uint64_t end_realtime_ns) {
  RecordSource src;
  src.identity = &info.identity;
  src.settings = &info.settings;
  src.region = region;
  src.timeline = timeline;
  src.counted = false;
  src.watch_start_ns = watch_start_ns;
  FinalFigures f = final_figures_of(w, end_realtime_ns);
  std::string line(record_capacity(src), '\0');
  TextBuffer out(line.data(), line.size());
  compose_record(out, src, f, ending);
  line.resize(out.size());
  return line;
}

}  // namespace account
