/// The process record of an image watched from outside (account watch): nothing
/// counted inside it, CPU and kernel peaks as /proc last said, the samples in
/// `region`. One composer for the single-process and the tree watch.
#pragma once

#include <cstdint>
#include <string>

#include "image_file.h"
#include "record_writer.h"
#include "sampling.h"

namespace account {

std::string compose_watch_record(const ImageInfo& info, const Region* region,
                                 const SharedTimeline* timeline, uint64_t watch_start_ns,
                                 const ProcessWatch& w, const Ending& ending,
                                 uint64_t end_realtime_ns);

}  // namespace account
