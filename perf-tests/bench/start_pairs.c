// start_pairs N VARIANT...: starts /bin/true N times under each variant,
// interleaved start by start (bare, A, B, ..., then the reverse order), and
// prints each variant's median wall time per start and its ratio to the
// first variant's. Interleaving single starts cancels the drift of a shared
// machine's speed, which blocks of hundreds of starts do not.
//
// Each start is vfork + execve + wait4, as sh starts a command. A variant is
// [LABEL@] and one of
//   bare           the environment without LD_PRELOAD and ACCOUNT_*
//   inherit        the environment as given (under account run: the run's)
//   inherit=LIB    the same with LD_PRELOAD=LIB (a prototype of the shim in the run)
//   LIB[:K=V,...]  bare, plus LD_PRELOAD=LIB, ACCOUNT_OUTPUT=$START_PAIRS_OUTPUT
//                  and the variables after the colon
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

enum { kMaxVariants = 16 };

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static int ours(const char* entry) {
  return strncmp(entry, "LD_PRELOAD=", 11) == 0 || strncmp(entry, "ACCOUNT_", 8) == 0;
}

static char** environment_of(const char* variant, const char* output) {
  size_t n = 0;
  while (environ[n]) ++n;
  char** env = calloc(n + 64, sizeof *env);
  size_t k = 0;
  int inherit = strncmp(variant, "inherit", 7) == 0;
  const char* replace = inherit && variant[7] == '=' ? variant + 8 : NULL;
  for (size_t i = 0; i < n; ++i) {
    if (replace && strncmp(environ[i], "LD_PRELOAD=", 11) == 0) {
      if (asprintf(&env[k++], "LD_PRELOAD=%s", replace) < 0) exit(2);
    } else if (inherit || !ours(environ[i])) {
      env[k++] = environ[i];
    }
  }
  if (inherit || strcmp(variant, "bare") == 0) return env;
  char* spec = strdup(variant);
  char* extra = strchr(spec, ':');
  if (extra) *extra++ = 0;
  if (asprintf(&env[k++], "LD_PRELOAD=%s", spec) < 0 ||
      asprintf(&env[k++], "ACCOUNT_OUTPUT=%s", output) < 0)
    exit(2);
  while (extra && *extra && k < n + 63) {
    char* comma = strchr(extra, ',');
    if (comma) *comma++ = 0;
    env[k++] = extra;
    extra = comma;
  }
  return env;
}

int main(int argc, char** argv) {
  if (argc < 3 || argc - 2 > kMaxVariants) {
    fprintf(stderr, "usage: start_pairs N VARIANT... (at most %d variants)\n", kMaxVariants);
    return 2;
  }
  int n = atoi(argv[1]);
  int variants = argc - 2;
  const char* output = getenv("START_PAIRS_OUTPUT");
  if (!output) output = "/dev/null";
  char** envs[kMaxVariants];
  double* wall[kMaxVariants];
  const char* label[kMaxVariants];
  for (int v = 0; v < variants; ++v) {
    label[v] = argv[v + 2];
    char* at = strchr(argv[v + 2], '@');
    if (at) *at = 0, argv[v + 2] = at + 1;
    envs[v] = environment_of(argv[v + 2], output);
    wall[v] = calloc((size_t)n, sizeof(double));
  }
  char* true_argv[] = {"/bin/true", NULL};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < variants; ++j) {
      int v = i % 2 ? variants - 1 - j : j;
      double start = now_ms();
      pid_t pid = vfork();
      if (pid == 0) {
        execve(true_argv[0], true_argv, envs[v]);
        _exit(127);
      }
      int status = 0;
      if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0) {
        fprintf(stderr, "start_pairs: /bin/true under %s failed\n", label[v]);
        return 1;
      }
      wall[v][i] = now_ms() - start;
    }
  }
  double base = 0;
  for (int v = 0; v < variants; ++v) {
    qsort(wall[v], (size_t)n, sizeof(double), by_value);
    double median = wall[v][n / 2];
    if (v == 0) base = median;
    printf("%-28s %8.3f ms  %6.3fx  (p25 %.3f, p75 %.3f)\n", label[v], median, median / base,
           wall[v][n / 4], wall[v][3 * n / 4]);
  }
  return 0;
}
