// run_pairs N STAMP OUT ARGS -- NAME=ACCOUNT...: account run's own cost,
// variant by variant in turn, N rounds. Each round starts
// `ACCOUNT run ARGS -- STAMP OUT` for every variant in turn (ACCOUNT "-":
// `STAMP OUT` alone, the command without account run); STAMP (stamp.c)
// writes the monotonic clock at its main's start and just before it returns.
// Three figures a run, in ms: from the spawn of account to the command's
// main (account's own start, its guard, the run's set-up, the command's
// exec and loading), from the command's return to account's exit being
// reaped (the run's end), and the whole. Prints each figure's median and
// quartiles, and the median's ratio to the first variant's.
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_time.h"

extern char** environ;

enum { kFigures = 3, kMaxVariants = 8, kMaxArgs = 32 };

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: run_pairs N STAMP OUT [ARGS...] -- NAME=ACCOUNT...\n");
    return 2;
  }
  int n = atoi(argv[1]);
  char* stamp = argv[2];
  char* out = argv[3];
  int sep = 4;
  while (sep < argc && strcmp(argv[sep], "--") != 0) ++sep;
  int nargs = sep - 4, k = argc - sep - 1;
  if (n < 1 || k < 1 || k > kMaxVariants || nargs > kMaxArgs - 8) {
    fprintf(stderr, "run_pairs: N >= 1, 1 to %d variants, at most %d ARGS\n", kMaxVariants,
            kMaxArgs - 8);
    return 2;
  }
  char* names[kMaxVariants];
  char* accounts[kMaxVariants];
  for (int j = 0; j < k; ++j) {
    names[j] = argv[sep + 1 + j];
    char* eq = strchr(names[j], '=');
    if (!eq) {
      fprintf(stderr, "run_pairs: variant '%s' is not NAME=ACCOUNT\n", names[j]);
      return 2;
    }
    *eq = '\0';
    accounts[j] = eq + 1;
  }
  double* figures = malloc(sizeof(double) * (size_t)n * (size_t)k * kFigures);
  if (!figures) return 1;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < k; ++j) {
      char* run_argv[kMaxArgs];
      int a = 0;
      int alone = strcmp(accounts[j], "-") == 0;
      if (!alone) {
        run_argv[a++] = accounts[j];
        run_argv[a++] = "run";
        for (int x = 0; x < nargs; ++x) run_argv[a++] = argv[4 + x];
        run_argv[a++] = "--";
      }
      run_argv[a++] = stamp;
      run_argv[a++] = out;
      run_argv[a] = NULL;
      unlink(out);
      pid_t pid;
      double start = now_s();
      if (posix_spawn(&pid, run_argv[0], NULL, NULL, run_argv, environ) != 0) {
        perror(accounts[j]);
        return 1;
      }
      int status = 0;
      waitpid(pid, &status, 0);
      double end = now_s();
      double main_at = 0, return_at = 0;
      FILE* f = fopen(out, "r");
      if (!f || fscanf(f, "%lf %lf", &main_at, &return_at) != 2 || status != 0) {
        fprintf(stderr, "run_pairs: %s run gave no stamps (status %d)\n", names[j], status);
        return 1;
      }
      fclose(f);
      double* row = figures + ((size_t)j * (size_t)n + (size_t)i) * kFigures;
      row[0] = (main_at - start) * 1e3;
      row[1] = (end - return_at) * 1e3;
      row[2] = (end - start) * 1e3;
    }
  }
  const char* titles[kFigures] = {"to the command's main", "command's end to exit", "whole run"};
  double first[kFigures] = {0};
  printf("%-24s", "variant (median ms)");
  for (int c = 0; c < kFigures; ++c) printf("  %-32s", titles[c]);
  printf("\n");
  double* column = malloc(sizeof(double) * (size_t)n);
  if (!column) return 1;
  for (int j = 0; j < k; ++j) {
    printf("%-24s", names[j]);
    for (int c = 0; c < kFigures; ++c) {
      for (int i = 0; i < n; ++i)
        column[i] = figures[((size_t)j * (size_t)n + (size_t)i) * kFigures + c];
      qsort(column, (size_t)n, sizeof(double), by_value);
      double median = column[n / 2];
      if (j == 0) first[c] = median;
      char cell[64];
      snprintf(cell, sizeof cell, "%.2f (%.2f-%.2f) %.3fx", median, column[n / 4],
               column[(3 * n) / 4], median / first[c]);
      printf("  %-32s", cell);
    }
    printf("\n");
  }
  free(column);
  free(figures);
  return 0;
}
