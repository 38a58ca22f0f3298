/// Whose file an output is: the shim writes records and logs into no file or
/// FIFO of another user's (one planted in a shared directory before the run).
#pragma once

#include <sys/stat.h>

namespace account {

/// True for a regular file or FIFO, open as `fd`, whose owner is neither root,
/// nor this exec's effective uid, nor the one the process has now (an image
/// that dropped root before its exec made its file as that user); a device
/// such as /dev/null is no user's. In a
/// user namespace that does not map the owner (`unshare -U`: root's own file
/// then shows as the overflow uid, 65534, as a file of nobody's does), the
/// kernel's own owner test decides: whether `fd` was granted O_NOATIME, which
/// only the owner gets there.
bool owned_by_another_user(int fd, const struct stat& st);

/// Whether `uid`, as this process sees it, is one its user namespace maps
/// (/proc/self/uid_map); true where that cannot be read.
bool uid_mapped(unsigned uid);

}  // namespace account
