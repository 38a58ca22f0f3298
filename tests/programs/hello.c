// Prints "hello from <argv[1]>" on stdout and "note" on stderr, returns argv[2].
#include <stdlib.h>

#include "say.h"

int main(int argc, char** argv) {
  say("hello from %s\n", argc > 1 ? argv[1] : "nobody");
  ssize_t ignored = write(2, "note\n", 5);
  (void)ignored;
  return argc > 2 ? atoi(argv[2]) : 0;
}
