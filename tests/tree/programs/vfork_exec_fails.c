// vfork_exec_fails N [PROGRAM]: N times, as Python's subprocess does it, a
// vfork child tries to exec a program that does not exist and _exits with
// 127; the parent waits for it. Each child runs the parent's program in the
// parent's memory (its calls count in the parent's image) and makes no
// image of its own. With PROGRAM, one more vfork child then execs PROGRAM.
// Prints "children N" once all are reaped.
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "say.h"

static int spawn(const char* path) {
  pid_t pid = vfork();
  if (pid == 0) {
    execl(path, path, (char*)0);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 0;
  int reaped = 0;
  for (int i = 0; i < n; ++i) reaped += spawn("/nonexistent/account-test-program") == 127;
  if (argc > 2 && spawn(argv[2]) != 0) return 1;
  say("children %d\n", reaped);
  return reaped == n ? 0 : 1;
}
