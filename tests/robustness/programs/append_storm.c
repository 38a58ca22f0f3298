// Forks COUNT children that wait on one pipe; closing it releases them all at
// once, and they exit together (each writing its record at the same moment).
// Prints "pid=P". Usage: append_storm COUNT [PADDING...] (padding arguments
// only make the records longer)
#include <stdlib.h>
#include <sys/wait.h>

#include "say.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int count = atoi(argv[1]);
  int gate[2];
  if (pipe(gate) != 0) return 3;
  for (int i = 0; i < count; ++i) {
    pid_t pid = fork();
    if (pid < 0) return 3;
    if (pid == 0) {
      close(gate[1]);
      char c;
      while (read(gate[0], &c, 1) > 0) {
      }
      free(malloc(100 + (size_t)i));
      exit(0);
    }
  }
  close(gate[0]);
  close(gate[1]);
  int failed = 0, status;
  while (wait(&status) > 0)
    if (!WIFEXITED(status) || WEXITSTATUS(status)) failed = 1;
  say("pid=%d\n", (int)getpid());
  return failed;
}
