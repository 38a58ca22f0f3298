// An exec chain through every exec function: `exec_chain N` becomes
// `exec_chain N-1` by the execveat system call through syscall() (N=7), the
// execve one (6), execv (5), execvp (4), execl (3), execle (2), fexecve (1),
// and `exec_chain 0` exits with 7. Each image prints
// "image=N pid=P". Needs its own absolute path as argv[0].
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "say.h"

extern char** environ;

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  int n = atoi(argv[1]);
  say("image=%d pid=%d\n", n, (int)getpid());
  free(malloc(100 + (size_t)n));
  if (n == 0) return 7;
  char next[16];
  snprintf(next, sizeof next, "%d", n - 1);
  char* args[] = {argv[0], next, NULL};
  switch (n) {
    case 7:
      syscall(SYS_execveat, AT_FDCWD, argv[0], args, environ, 0);
      break;
    case 6:
      syscall(SYS_execve, argv[0], args, environ);
      break;
    case 5:
      execv(argv[0], args);
      break;
    case 4:
      execvp(argv[0], args);
      break;
    case 3:
      execl(argv[0], argv[0], next, (char*)NULL);
      break;
    case 2:
      execle(argv[0], argv[0], next, (char*)NULL, environ);
      break;
    default: {
      int fd = open(argv[0], O_RDONLY | O_CLOEXEC);
      fexecve(fd, args, environ);
    }
  }
  return 3;  // exec failed
}
