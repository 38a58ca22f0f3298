// Starts COUNT copies of PROGRAM with vfork+execv or posix_spawn (MODE
// "vfork" or "spawn"), waits for them all. Prints "pid=P" and "child=C" per
// child. Exit status 0 when every child exited with 0.
// Usage: spawn_storm MODE COUNT PROGRAM
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "say.h"

extern char** environ;

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  int vf = strcmp(argv[1], "vfork") == 0;
  int count = atoi(argv[2]);
  char* args[] = {argv[3], NULL};
  say("pid=%d\n", (int)getpid());
  for (int i = 0; i < count; ++i) {
    pid_t pid;
    if (vf) {
      pid = vfork();
      if (pid == 0) {
        execv(argv[3], args);
        _exit(127);
      }
    } else if (posix_spawn(&pid, argv[3], NULL, NULL, args, environ) != 0) {
      return 3;
    }
    if (pid < 0) return 3;
    say("child=%d\n", (int)pid);
  }
  int failed = 0, status;
  while (wait(&status) > 0)
    if (!WIFEXITED(status) || WEXITSTATUS(status)) failed = 1;
  return failed;
}
