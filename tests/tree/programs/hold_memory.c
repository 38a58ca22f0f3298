// hold_memory MIB HOLD_MS: prints its resident size before allocating (bytes),
// then touches MIB MiB, holds them HOLD_MS milliseconds, frees them and waits
// 50 ms more, so the peak lies strictly inside the run.
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long resident_bytes(void) {
  long size, resident;
  FILE* f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &size, &resident) != 2) return -1;
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  size_t bytes = (size_t)atol(argv[1]) << 20;
  long hold = atol(argv[2]);
  printf("%ld\n", resident_bytes());
  fflush(stdout);
  sleep_ms(20);
  char* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 3;
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  sleep_ms(hold);
  munmap(p, bytes);
  sleep_ms(50);
  return 0;
}
