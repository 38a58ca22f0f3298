/// The unwinder behind one small interface: libunwind's local unwinding, loaded
/// with dlopen(RTLD_LOCAL) only when backtraces are on.
///
/// Why not linked: libunwind.so.8 exports _Unwind_RaiseException and the rest of
/// the C++ unwinding ABI. Linked into a preloaded library it would sit in every
/// program's global scope and could take over C++ exception handling from
/// libgcc_s; loaded RTLD_LOCAL only libaccount sees it, and only when asked.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace account {

/// Loads libunwind, selects per-thread caching (no global lock, so no lock order
/// against the loader's) and unwinds once so its lazy initialisation happens now,
/// single-threaded, with the capture guard held. False if it cannot be loaded;
/// *why then names the reason (static text).
bool unwinder_load(const char** why);

/// Instruction pointers of the calling thread's stack, innermost first (this
/// function's own frames included). At most `max`; returns how many.
int unwinder_capture(uintptr_t* ips, int max);

/// Whether `ip` lies in libaccount itself or in the unwinder: the frames a
/// capture skips before the program's own.
bool unwinder_own_frame(uintptr_t ip);

}  // namespace account
