// Changes directory to DIR, allocates, and exits; a child forked after the
// chdir does the same. Prints "pid=P child=C".
// Usage: chdir_exit DIR
#include <stdlib.h>
#include <sys/wait.h>

#include "say.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  if (chdir(argv[1]) != 0) return 3;
  free(malloc(777));
  pid_t pid = fork();
  if (pid == 0) {
    free(malloc(555));
    exit(0);
  }
  int status;
  waitpid(pid, &status, 0);
  say("pid=%d child=%d\n", (int)getpid(), (int)pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
