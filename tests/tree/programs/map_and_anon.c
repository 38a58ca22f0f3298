// map_and_anon FILE MIB HOLD_MS: maps FILE (at least MIB MiB) read-only and
// reads one byte of every page (file-backed resident memory), then mallocs
// MIB MiB and writes every byte (anonymous resident memory), holds both
// HOLD_MS milliseconds and exits. Prints from /proc/self/statm the anonymous
// resident bytes (resident - shared) before anything is touched
// ("anon_before=") and while holding ("anon_holding="), and the resident
// bytes while holding ("rss_holding=").
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "say.h"

static void statm(long* resident, long* shared) {
  char text[256];
  int fd = open("/proc/self/statm", O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
  if (fd >= 0) close(fd);
  long size;
  *resident = *shared = -1;
  if (n <= 0) return;
  text[n] = 0;
  long page = sysconf(_SC_PAGESIZE);
  if (sscanf(text, "%ld %ld %ld", &size, resident, shared) == 3) {
    *resident *= page;
    *shared *= page;
  }
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  size_t bytes = (size_t)atol(argv[2]) << 20;
  long hold = atol(argv[3]);
  long resident, shared;
  statm(&resident, &shared);
  long anon_before = resident - shared;
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) return 3;
  const volatile char* file = mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED) return 3;
  long sum = 0;
  for (size_t i = 0; i < bytes; i += 4096) sum += file[i];
  char* anon = malloc(bytes);
  if (!anon) return 4;
  memset(anon, 1, bytes);
  statm(&resident, &shared);
  say("anon_before=%ld\nanon_holding=%ld\nrss_holding=%ld\nsum=%ld\n", anon_before,
      resident - shared, resident, sum);
  sleep_ms(hold);
  free(anon);
  return 0;
}
