// chroot: a program that moves its root where the shim's file is not (a build
// chroot without the account package: chroot(1), schroot, sbuild) would have
// ld.so print "ERROR: ld.so: object ... from LD_PRELOAD cannot be preloaded
// ... ignored." on the stderr of every program it then execs. Once the call
// succeeded and the shim's path cannot be read in the new root, the process's
// LD_PRELOAD loses the shim's entry: the programs it execs start without the
// shim, silently, and account run counts them as processes without it
// (docs/run.md). The execs of the shim's own take it out of theirs too
// (shim_reach.h); this covers libc's own spawns, system() and popen().
#include <errno.h>

#include "find_next.h"
#include "lifecycle.h"
#include "shim_reach.h"

using namespace account;

namespace {

using ChrootFn = int (*)(const char*);
ChrootFn g_next_chroot;

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int chroot(const char* path) {
  // Looked up at the first call: a program that never calls it pays nothing at its start.
  if (!g_next_chroot && !find_next(&g_next_chroot, "chroot")) {
    errno = ENOSYS;
    return -1;
  }
  int saved_errno = errno;
  int result = g_next_chroot(path);
  // A vfork child shares its parent's environment: it is left alone.
  if (result == 0 && called_by_own_image()) {
    forget_shim_if_out_of_reach();
    errno = saved_errno;
  }
  return result;
}

}  // extern "C"
