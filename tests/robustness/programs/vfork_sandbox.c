// vfork_sandbox CODE: a vfork child puts itself in a seccomp sandbox (one
// that kills on getrusage, prlimit64 and flock) and _exits; the parent, which
// shared its memory until then and is in no sandbox, allocates 1000 bytes and
// returns CODE.
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "end_sandbox.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  struct sock_fprog program = end_sandbox_program();
  pid_t child = vfork();
  if (child == 0) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
      _exit(5);
    _exit(0);
  }
  int status;
  if (child < 0 || waitpid(child, &status, 0) != child || status != 0) return 3;
  void* volatile block = malloc(1000);
  free(block);
  return atoi(argv[1]);
}
