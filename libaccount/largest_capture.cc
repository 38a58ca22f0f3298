#include "largest_capture.h"

namespace account {
namespace {

// `store` tells a fork child's fresh store from the one the group was in.
struct LargestCapture {
  const BacktraceStore* store;
  uint64_t requested;
  int32_t group;
};
__thread LargestCapture tls_largest_capture __attribute__((tls_model("initial-exec")));

}  // namespace

void note_capture(const BacktraceStore* store, uint64_t requested, int32_t group) {
  LargestCapture& largest = tls_largest_capture;
  if (largest.store != store || requested > largest.requested) largest = {store, requested, group};
}

void forget_largest_capture() {
  tls_largest_capture = LargestCapture{};
}

uint32_t largest_capture_frames(uint64_t largest_request, uintptr_t* out, uint32_t max) {
  const LargestCapture& largest = tls_largest_capture;
  const BacktraceStore* store = __atomic_load_n(&g_backtrace_store, __ATOMIC_ACQUIRE);
  if (store == nullptr || largest.store != store || largest.requested != largest_request) return 0;
  return backtrace_group_frames(store, largest.group, out, max);
}

}  // namespace account
