// setuid, seteuid, setreuid, setresuid: a root image of account run that
// takes another effective user makes that user's directory in the run's
// directory first (image_file.h, prepare_user_dir), where the images it
// starts as that user put their files: `runuser -u postgres -- pg_ctl`,
// `su`, `setpriv`, a daemon's workers. The call itself is glibc's (it
// changes every thread's credentials); its next definition is looked up at
// the first call, which most programs never make.
#include <errno.h>
#include <sys/types.h>
#include <unistd.h>

#include "find_next.h"
#include "image_file.h"

using namespace account;

namespace {

template <typename F>
F next(F* slot, const char* name) {
  if (!*slot) find_next(slot, name);
  return *slot;
}

// No next definition (never with glibc): the call fails as unsupported.
int unavailable() {
  errno = ENOSYS;
  return -1;
}

using SetuidFn = int (*)(uid_t);
using SetreuidFn = int (*)(uid_t, uid_t);
using SetresuidFn = int (*)(uid_t, uid_t, uid_t);

SetuidFn g_next_setuid, g_next_seteuid;
SetreuidFn g_next_setreuid;
SetresuidFn g_next_setresuid;

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int setuid(uid_t uid) {
  prepare_user_dir(uid);
  SetuidFn f = next(&g_next_setuid, "setuid");
  return f ? f(uid) : unavailable();
}

__attribute__((visibility("default"))) int seteuid(uid_t euid) {
  prepare_user_dir(euid);
  SetuidFn f = next(&g_next_seteuid, "seteuid");
  return f ? f(euid) : unavailable();
}

__attribute__((visibility("default"))) int setreuid(uid_t ruid, uid_t euid) {
  prepare_user_dir(euid);
  SetreuidFn f = next(&g_next_setreuid, "setreuid");
  return f ? f(ruid, euid) : unavailable();
}

__attribute__((visibility("default"))) int setresuid(uid_t ruid, uid_t euid, uid_t suid) {
  prepare_user_dir(euid);
  SetresuidFn f = next(&g_next_setresuid, "setresuid");
  return f ? f(ruid, euid, suid) : unavailable();
}

}  // extern "C"
