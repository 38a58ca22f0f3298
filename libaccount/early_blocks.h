/// Blocks made before the shim's constructor ran, by an allocator whose
/// usable sizes the shim asks it (any but glibc's, whose chunk header it reads).
///
/// Until then the libraries loaded after the shim may still be starting, and
/// such an allocator serves malloc while it starts but cannot yet say a
/// block's usable size: GCC's sanitizer runtimes (libasan, liblsan, libtsan)
/// abort or fault when asked, gperftools' tcmalloc answers 0 for the blocks
/// libstdc++'s initializer makes. So until the constructor the shim asks it
/// nothing but the calls it forwards: a block's request stands for its usable
/// size, and the constructor asks the true size of each such block still live.
#pragma once

#include <stdint.h>

namespace account {

/// False until the constructor has settled the early blocks.
extern bool g_libraries_started;

/// Notes block `p` (never NULL), made with `requested` bytes before the
/// constructor; false when the table is full (then ask the allocator).
bool note_early_block(void* p, uint64_t requested);

/// If `p` is a noted block not yet settled: forgets it and sets *counted to
/// the size it was counted with.
bool take_early_block(void* p, int64_t* counted);

/// The constructor: each noted block's usable size replaces its request in
/// the heap figures, and from then on sizes are asked at once.
void settle_early_blocks();

}  // namespace account
