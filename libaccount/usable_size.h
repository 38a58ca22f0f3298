/// The usable size of a live block from glibc's malloc, as malloc_usable_size
/// computes it, read straight from the chunk's size word (the 8 bytes before the
/// block; the low 3 bits are flags, bit 1 = IS_MMAPPED): an mmapped chunk's
/// header takes 16 bytes of its size, any other chunk 8. No call, no second
/// cache line. Start-up compares the two on small and medium blocks, plain and
/// aligned, and keeps calling malloc_usable_size if they ever differ (another
/// layout, a debugging malloc); the mmapped case is covered by the heap-peak
/// tests (tests/programs/heap_peak.c frees a 3 MiB block).
#pragma once

#include <stdint.h>

#include "atomics.h"
#include "next_allocator.h"

namespace account {

extern bool g_usable_from_header;

/// `p` is a live block, never NULL; only while g_usable_from_header.
inline int64_t usable_size_from_header(void* p) {
  uint64_t size_word = static_cast<uint64_t*>(p)[-1];
  return static_cast<int64_t>((size_word & ~uint64_t{7}) - 8 - ((size_word & 2) << 2));
}

/// The fast paths' split of usable_size_from_header: a chunk's size word, and
/// its usable size when glibc did not mmap it (mmapped chunks, 128 KiB and
/// more, take a cold path that calls usable_size_from_header).
inline uint64_t chunk_size_word(void* p) {
  return static_cast<uint64_t*>(p)[-1];
}
inline bool chunk_mmapped(uint64_t size_word) {
  return (size_word & 2) != 0;
}
inline int64_t heap_chunk_usable(uint64_t size_word) {
  return static_cast<int64_t>((size_word & ~uint64_t{7}) - 8);
}

/// `p` is a live block, never NULL.
inline int64_t usable_size(void* p) {
  if (ACCOUNT_LIKELY(g_usable_from_header)) return usable_size_from_header(p);
  return static_cast<int64_t>(g_next.malloc_usable_size(p));
}

/// Sets g_usable_from_header if the next allocator is glibc's and the header
/// agrees with its malloc_usable_size.
void check_usable_from_header();
/// The same, once per process, at the first malloc: a program that never
/// allocates gets no heap from the shim (the check allocates). True if this
/// call ran it (the caller then updates the heap detour).
bool check_usable_from_header_once();
/// Whether that check has run: g_usable_from_header is then final.
bool usable_check_done();

}  // namespace account
