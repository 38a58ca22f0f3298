// stamp OUT: writes the monotonic clock at its main's start and just before
// it returns, one line each, to OUT (run_pairs.c's command).
#include <stdio.h>
#include <time.h>

int main(int argc, char** argv) {
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  if (argc != 2) return 2;
  FILE* f = fopen(argv[1], "w");
  if (!f) return 1;
  clock_gettime(CLOCK_MONOTONIC, &end);
  fprintf(f, "%ld.%09ld\n", (long)start.tv_sec, start.tv_nsec);
  fprintf(f, "%ld.%09ld\n", (long)end.tv_sec, end.tv_nsec);
  return fclose(f) == 0 ? 0 : 1;
}
