// Issue 34 (a truncated image file): a process under a root `account run`
// opens its own image file (found in ACCOUNT_RUN_DIR through /proc/self/maps),
// drops to nobody, truncates the file to nothing through that descriptor and
// SIGKILLs itself, so that the run's sampler, which mapped the file while
// it was whole, reads a mapping with no file below it. Prints "truncated PATH" first.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  const char* run_dir = getenv("ACCOUNT_RUN_DIR");
  if (!run_dir) {
    fprintf(stderr, "truncate_image_file: no ACCOUNT_RUN_DIR\n");
    return 2;
  }
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[8192], path[4096] = "";
  while (maps && fgets(line, sizeof line, maps)) {
    char* at = strstr(line, run_dir);
    if (!at) continue;
    at[strcspn(at, "\n")] = 0;
    snprintf(path, sizeof path, "%s", at);
    break;
  }
  int fd = path[0] ? open(path, O_RDWR) : -1;
  if (fd < 0) {
    fprintf(stderr, "truncate_image_file: no image file of mine in %s\n", run_dir);
    return 2;
  }
  // Until the run's sampler has the file mapped: its pid is in the run
  // directory's name (account-run-PID-XXXXXX).
  const char* name = strstr(run_dir, "account-run-");
  char sampler_maps[64];
  snprintf(sampler_maps, sizeof sampler_maps, "/proc/%d/maps", name ? atoi(name + 12) : 0);
  int mapped = 0;
  for (int i = 0; i < 1000 && !mapped; ++i) {
    FILE* f = fopen(sampler_maps, "r");
    while (f && !mapped && fgets(line, sizeof line, f)) mapped = strstr(line, path) != NULL;
    if (f) fclose(f);
    if (!mapped) usleep(10 * 1000);
  }
  if (!mapped) {
    fprintf(stderr, "truncate_image_file: the run never mapped %s\n", path);
    return 2;
  }
  printf("truncated %s\n", path);
  fflush(stdout);
  if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) return 3;
  // From here on nothing touches the shim's counters (they were in that file).
  if (ftruncate(fd, 0) != 0) return 4;
  kill(getpid(), SIGKILL);
  return 5;
}
