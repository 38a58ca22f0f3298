// sandboxed_exit prctl|seccomp CODE: puts itself in a seccomp sandbox (as
// sshd's and vsftpd's privilege-separated children do) that kills the
// process on getrusage, prlimit64 and flock, the system calls a program's
// end does not need, through prctl or through syscall(SYS_seccomp) as
// libseccomp does; then allocates 1000 bytes, frees them, says "sandboxed"
// and returns CODE.
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "say.h"

#define KILL_ON(nr)                                \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      KILL_ON(SYS_getrusage),
      KILL_ON(SYS_prlimit64),
      KILL_ON(SYS_flock),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
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
