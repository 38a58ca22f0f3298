/// File mappings a process outside the file's owner reads: the owner can
/// truncate the file at any time, and the next access to a page past its new
/// end raises SIGBUS. A guarded mapping is replaced, at that fault, by zeroed
/// anonymous memory at the same address (the access then reads zeros) and is
/// marked lost, so that its reader can tell the figures it read are not the
/// file's. For the tree sampler's image files (image_view.cc); the shim inside
/// a program never guards anything (no SIGBUS handler of its own there).
#pragma once

#include <stddef.h>

namespace account {

/// Guards [base, base + size) (page-aligned, from mmap). Returns its slot, or
/// -1 if the table (65536 mappings at once) is full or the handler cannot be
/// set: then the caller must not keep the mapping.
int guard_mapping(void* base, size_t size);
/// Before the mapping is unmapped.
void unguard_mapping(int slot);
/// True once a fault replaced the guarded mapping with zeros.
bool mapping_lost(int slot);

}  // namespace account
