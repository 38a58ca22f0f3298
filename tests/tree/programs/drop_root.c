// A server's way of ending: it starts as root, makes 100 allocations of 1000
// bytes, drops to nobody (uid and gid 65534) in the same image, and exits
// with status 3. Dropped, it can no longer open root's output: its record is
// handed to the run (libaccount/lifecycle.cc). Prints "dropped" once it has.
//
// `drop_root PROGRAM ARGS...`: runuser's way instead: once dropped, it execs
// PROGRAM, so its exec record is the one root's output refuses.
#include <stdlib.h>
#include <unistd.h>

#include "say.h"

int main(int argc, char** argv) {
  static void* keep[100];
  for (int i = 0; i < 100; ++i) keep[i] = malloc(1000);
  if (setgid(65534) != 0 || setuid(65534) != 0) return 2;
  say("dropped\n");
  if (argc > 1) {
    execv(argv[1], argv + 1);
    return 5;
  }
  return keep[99] ? 3 : 4;
}
