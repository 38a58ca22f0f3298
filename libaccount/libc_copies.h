/// Counting the copies glibc makes inside itself (issue 17): stdio copying into
/// FILE buffers, strdup, the path search of execvp, ... Those calls never reach
/// the shim's exported memcpy: libc.so calls its IFUNC-selected memcpy, memmove
/// and mempcpy through its own IRELATIVE GOT slots (`*ABS*+0x...@plt`). At start
/// the constructor points the slots that hold those implementations at counting
/// stand-ins that add to the thread's slot (Slot::libc_copied_*) and jump to the
/// same implementation. docs/architecture.md ("Copies inside the C library")
/// says why that is safe.
#pragma once

#include <stdint.h>

#include "counters.h"

namespace account {

/// Region::libc_copies.
enum LibcCopies : uint32_t {
  kLibcCopiesOff = 0,           // ACCOUNT_LIBC_COPIES=0 (or the image never got that far)
  kLibcCopiesCounted = 1,       // the slots are patched
  kLibcCopiesUnrecognised = 2,  // not a C library this method knows: nothing patched
};

/// Once, from the constructor, after settings and the real copy functions:
/// patches libc's slots (or not) and returns the state stored in the Region.
LibcCopies patch_libc_copies();

/// The state for this image (copied into each fresh Region after a fork).
LibcCopies libc_copies_state();

/// pthread_atfork handlers: from prepare to the child's new Region (or the
/// parent's return), libc's copies on the forking thread are not counted: the
/// child's tls_counting.slot still points into the parent's shared Region.
void libc_copies_before_fork();
void libc_copies_after_fork_in_parent();

/// Around a call into the allocator whose own copies are counted elsewhere
/// (realloc's move is realloc_copied_bytes). Per thread, a bit in a
/// thread-local word; nests. Only the bit is cleared, so a slot claimed inside
/// (which clears kLibcDetourUnowned) stays claimed.
class InsideAllocator {
 public:
  InsideAllocator() : was_inside_(tls_libc_detour & kLibcDetourAllocator) {
    tls_libc_detour |= kLibcDetourAllocator;
  }
  ~InsideAllocator() {
    if (!was_inside_) tls_libc_detour &= ~kLibcDetourAllocator;
  }
  InsideAllocator(const InsideAllocator&) = delete;
  InsideAllocator& operator=(const InsideAllocator&) = delete;

 private:
  uint32_t was_inside_;
};

}  // namespace account
