// run_stages N STAMP OUT ACCOUNT [ARGS...]: where account run's own time goes.
// N times, `ACCOUNT run ARGS -- STAMP OUT` with ACCOUNT_RUN_STAGES_FD=3 on a
// pipe: account writes "stage SECONDS NAME" as it reaches each stage of the
// run (cli/run_stages.h), STAMP (stamp.c) the clock at the command's main and
// return. Prints each stage's median time since the spawn of account and the
// median of its step (from the stage before it in the same run), in ms, in
// the order of the first run; the spawn and the reap of account are the
// first and last rows.
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_time.h"

extern char** environ;

enum { kMaxStages = 40, kMaxArgs = 32, kName = 64 };

static char g_names[kMaxStages][kName];
static int g_stages;

// The row of `name`: appended in the first run, looked up in the others (-1: unknown).
static int stage_index(const char* name, int first_run) {
  for (int s = 0; s < g_stages; ++s)
    if (strcmp(g_names[s], name) == 0) return s;
  if (!first_run || g_stages == kMaxStages) return -1;
  snprintf(g_names[g_stages], kName, "%s", name);
  return g_stages++;
}

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: run_stages N STAMP OUT ACCOUNT [ARGS...]\n");
    return 2;
  }
  int n = atoi(argv[1]);
  char *stamp = argv[2], *out = argv[3], *account = argv[4];
  int nargs = argc - 5;
  if (n < 1 || nargs > kMaxArgs - 8) {
    fprintf(stderr, "run_stages: N >= 1, at most %d ARGS\n", kMaxArgs - 8);
    return 2;
  }
  char* run_argv[kMaxArgs];
  int a = 0;
  run_argv[a++] = account;
  run_argv[a++] = "run";
  for (int x = 0; x < nargs; ++x) run_argv[a++] = argv[5 + x];
  run_argv[a++] = "--";
  run_argv[a++] = stamp;
  run_argv[a++] = out;
  run_argv[a] = NULL;
  setenv("ACCOUNT_RUN_STAGES_FD", "3", 1);
  double* at =
      calloc((size_t)n * kMaxStages, sizeof(double));  // ms since the spawn, 0: not reached
  if (!at) return 1;
  for (int i = 0; i < n; ++i) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return 1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 3);
    unlink(out);
    pid_t pid;
    double start = now_s();
    if (posix_spawn(&pid, account, &actions, NULL, run_argv, environ) != 0) {
      perror(account);
      return 1;
    }
    close(fds[1]);
    posix_spawn_file_actions_destroy(&actions);
    double* row = at + (size_t)i * kMaxStages;
    row[stage_index("spawn of account", i == 0)] = 1e-9;
    FILE* stages = fdopen(fds[0], "r");
    char line[256];
    while (stages && fgets(line, sizeof line, stages)) {
      double t;
      int used;
      if (sscanf(line, "stage %lf %n", &t, &used) != 1) continue;
      line[strcspn(line, "\n")] = '\0';
      int s = stage_index(line + used, i == 0);
      if (s >= 0) row[s] = (t - start) * 1e3;
    }
    if (stages) fclose(stages);  // EOF: account and what inherited the pipe are done
    int status = 0;
    waitpid(pid, &status, 0);
    double end = now_s();
    double main_at = 0, return_at = 0;
    FILE* f = fopen(out, "r");
    if (!f || fscanf(f, "%lf %lf", &main_at, &return_at) != 2 || status != 0) {
      fprintf(stderr, "run_stages: a run gave no stamps (status %d)\n", status);
      return 1;
    }
    fclose(f);
    int m = stage_index("command's main", i == 0), r = stage_index("command's return", i == 0);
    if (m >= 0) row[m] = (main_at - start) * 1e3;
    if (r >= 0) row[r] = (return_at - start) * 1e3;
    row[stage_index("account reaped", i == 0)] = (end - start) * 1e3;
  }
  // Rows by the first run's median time, so the command's stamps fall in place.
  double* column = malloc(sizeof(double) * (size_t)n);
  double* step = malloc(sizeof(double) * (size_t)n);
  double median[kMaxStages];
  int order[kMaxStages];
  if (!column || !step) return 1;
  for (int s = 0; s < g_stages; ++s) {
    int k = 0;
    for (int i = 0; i < n; ++i)
      if (at[(size_t)i * kMaxStages + s] > 0) column[k++] = at[(size_t)i * kMaxStages + s];
    qsort(column, (size_t)k, sizeof(double), by_value);
    median[s] = k ? column[k / 2] : 0;
    order[s] = s;
  }
  for (int x = 1; x < g_stages; ++x)
    for (int y = x; y > 0 && median[order[y]] < median[order[y - 1]]; --y) {
      int t = order[y];
      order[y] = order[y - 1];
      order[y - 1] = t;
    }
  printf("%-44s %12s %12s\n", "stage (median ms)", "since spawn", "step");
  for (int x = 0; x < g_stages; ++x) {
    int s = order[x], before = x > 0 ? order[x - 1] : -1;
    int k = 0;
    for (int i = 0; i < n; ++i) {
      double t = at[(size_t)i * kMaxStages + s];
      double b = before >= 0 ? at[(size_t)i * kMaxStages + before] : 0;
      if (t > 0 && (before < 0 || b > 0)) step[k++] = t - b;
    }
    qsort(step, (size_t)k, sizeof(double), by_value);
    printf("%-44s %12.3f %12.3f\n", g_names[s], median[s], k ? step[k / 2] : 0.0);
  }
  free(step);
  free(column);
  free(at);
  return 0;
}
