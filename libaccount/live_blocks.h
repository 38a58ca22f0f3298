/// ACCOUNT_BACKTRACE_LEAKS: the captured blocks still live, by address, so a
/// free can take its block off its backtrace group (backtrace_store.h) and the
/// record can say which stacks hold the heap at the end.
///
/// An open-addressing table in a private anonymous mapping (a fork child
/// starts an empty one: its groups are new too), lock-free: an insert claims
/// an empty or freed entry with one compare-and-swap, a removal marks its
/// entry freed. Every block sits within kLiveProbeLimit entries of its home,
/// so a lookup of an address that is not there stops after that many; a block
/// that finds no room there is not followed and is counted as untracked.
/// Only the malloc family's out-of-line path (backtraces on) calls it.
#pragma once

#include <stdint.h>

namespace account {

constexpr uint32_t kLiveCapacity = 1u << 20;  // 16 MiB of address space, touched as used
constexpr uint32_t kLiveProbeLimit = 512;

/// True while the table is mapped (ACCOUNT_BACKTRACE_LEAKS and backtraces on).
extern bool g_live_blocks_on;

/// Maps an empty table (unmapping an inherited one); false if it cannot.
bool start_live_blocks();
void stop_live_blocks();

/// A captured block of `requested` bytes in group `group` (kNoGroup: other).
/// False when it found no room (the caller counts it untracked).
bool live_block_add(void* block, uint64_t requested, int32_t group);
/// Takes `block` off the table if it is there: its request and group.
bool live_block_take(void* block, uint64_t* requested, int32_t* group);

}  // namespace account
