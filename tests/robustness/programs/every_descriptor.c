// every_descriptor [exec|linger]: opens /dev/null until the soft limit on
// descriptors is reached (EMFILE), then allocates 1000 bytes and says how many
// it opened; with "exec", execs /bin/sh to print the soft limit its next
// program sees (the descriptors are close-on-exec: the exec is made with
// every one open, and sh starts without them); with "linger", lives 100 ms
// more before it returns.
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "say.h"

int main(int argc, char** argv) {
  int opened = 0;
  while (open("/dev/null", O_RDONLY | O_CLOEXEC) >= 0) ++opened;
  if (errno != EMFILE) return 2;
  char* block = malloc(1000);
  if (!block) return 3;
  free(block);
  say("opened=%d\n", opened);
  if (argc > 1 && strcmp(argv[1], "linger") == 0) {
    struct timespec t = {0, 100 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
  if (argc > 1 && strcmp(argv[1], "exec") == 0) {
    execl("/bin/sh", "sh", "-c", "ulimit -Sn", (char*)0);
    return 4;
  }
  return 0;
}
