#include "heard_exits.h"

namespace account {

void HeardExits::push(pid_t pid, bool exit, int status) {
  ring_[next_] = Heard{pid, exit, status};
  next_ = (next_ + 1) % kKept;
  if (size_ < kKept) ++size_;
}

bool HeardExits::status_of(pid_t pid, int* wait_status) {
  if (read_) read_();
  for (size_t i = 1; i <= size_; ++i) {
    const Heard& h = ring_[(next_ + kKept - i) % kKept];
    if (h.pid != pid) continue;
    if (!h.exit) return false;  // forked since its last exit: not ended as far as heard
    *wait_status = h.status;
    return true;
  }
  return false;
}

Ending classify_tree_death(ProcReader& proc, ProcessWatch* w, pid_t pid, Writer writer,
                           HeardExits* heard) {
  Ending ending = classify_death(proc, w, writer);
  int status = 0;
  if (!ending.code_known && heard && heard->status_of(pid, &status))
    ending = ending_from_wait_status(true, status, writer);
  return ending;
}

}  // namespace account
