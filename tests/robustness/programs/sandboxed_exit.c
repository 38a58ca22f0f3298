// sandboxed_exit prctl|seccomp CODE: puts itself in a seccomp sandbox (as
// sshd's and vsftpd's privilege-separated children do) that kills the
// process on getrusage, prlimit64 and flock, the system calls a program's
// end does not need, through prctl or through syscall(SYS_seccomp) as
// libseccomp does; then allocates 1000 bytes, frees them, says "sandboxed"
// and returns CODE.
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "end_sandbox.h"
#include "say.h"

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  struct sock_fprog program = end_sandbox_program();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 4;
  long entered = strcmp(argv[1], "prctl") == 0
                     ? prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program)
                     : syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program);
  if (entered != 0) return 5;
  void* volatile block = malloc(1000);
  free(block);
  say("sandboxed\n");
  return atoi(argv[2]);
}
