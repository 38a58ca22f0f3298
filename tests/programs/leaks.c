// Blocks live at the end and temporary allocations with known counts, for the
// record's heap_at_exit_* and temporary_* (docs/leaks.md). No stdio: its
// buffer would be one more block live at the end.
//   leaks none          allocates nothing (the baseline of the runtime's own)
//   leaks three         leaks 1000 bytes from keep_small() and 2000 and 3000
//                       from keep_large(), frees every other block; prints
//                       "usable=N", the three blocks' malloc_usable_size
//   leaks four          as three, and 4000 bytes more kept from keep_extra():
//                       one allocation site more (compare --backtraces)
//   leaks big N         N blocks of 256 KiB, each freed (backtrace sampling)
//   leaks temporaries N N pairs of malloc(64) and free
//   leaks interleaved N N rounds of a = malloc(48), b = malloc(80), free(a),
//                       free(b): only b is a temporary (a outlives b's malloc)
//   leaks calls         malloc, calloc, realloc(NULL), realloc of a block,
//                       realloc(p, 0), free(NULL) and a malloc that fails;
//                       ends with one block of 100 bytes live
//   leaks fork          keeps two blocks, forks; the child allocates one,
//                       frees one inherited and exits (2 live); the parent
//                       waits and frees its two (0 live)
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void* volatile g_kept[3];
static void* volatile g_extra;

static void say_usable(size_t n) {
  char text[64] = "usable=";
  char digits[24];
  int len = 0;
  do digits[len++] = (char)('0' + n % 10);
  while ((n /= 10) != 0);
  size_t at = strlen(text);
  while (len) text[at++] = digits[--len];
  text[at++] = '\n';
  if (write(1, text, at) != (ssize_t)at) _exit(2);
}

__attribute__((noinline)) static void keep_small(void) {
  g_kept[0] = malloc(1000);
}

__attribute__((noinline)) static void keep_large(void) {
  g_kept[1] = malloc(2000);
  g_kept[2] = malloc(3000);
}

__attribute__((noinline)) static void keep_extra(void) {
  g_extra = malloc(4000);
}

static int three(void) {
  void* other = malloc(500);
  keep_small();
  void* more = calloc(10, 70);
  keep_large();
  free(other);
  free(more);
  size_t usable = 0;
  for (int i = 0; i < 3; ++i) usable += malloc_usable_size(g_kept[i]);
  say_usable(usable);
  return 0;
}

static int temporaries(long n) {
  for (long i = 0; i < n; ++i) {
    void* volatile p = malloc(64);
    free(p);
  }
  return 0;
}

static int big(long n) {
  for (long i = 0; i < n; ++i) {
    void* volatile p = malloc(256 * 1024);
    free(p);
  }
  return 0;
}

static int interleaved(long n) {
  for (long i = 0; i < n; ++i) {
    void* volatile a = malloc(48);
    void* volatile b = malloc(80);
    free(a);
    free(b);
  }
  return 0;
}

static int calls(void) {
  void* a = malloc(10);
  void* b = calloc(3, 10);
  void* c = realloc(NULL, 20);
  c = realloc(c, 4000);        // a block: no new one
  void* gone = realloc(b, 0);  // frees b, returns NULL
  free(NULL);
  void* volatile huge = malloc(SIZE_MAX / 2);  // fails
  free(a);
  free(c);
  g_kept[0] = malloc(100);
  say_usable(malloc_usable_size(g_kept[0]));
  return gone == NULL && huge == NULL ? 0 : 1;
}

static int forked(void) {
  g_kept[0] = malloc(300);
  g_kept[1] = malloc(400);
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    g_kept[2] = malloc(500);
    free(g_kept[0]);
    exit(0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 1;
  free(g_kept[0]);
  free(g_kept[1]);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* mode = argv[1];
  if (strcmp(mode, "none") == 0) return 0;
  if (strcmp(mode, "three") == 0) return three();
  if (strcmp(mode, "four") == 0) return keep_extra(), three();
  if (strcmp(mode, "temporaries") == 0 && argc > 2) return temporaries(atol(argv[2]));
  if (strcmp(mode, "big") == 0 && argc > 2) return big(atol(argv[2]));
  if (strcmp(mode, "interleaved") == 0 && argc > 2) return interleaved(atol(argv[2]));
  if (strcmp(mode, "calls") == 0) return calls();
  if (strcmp(mode, "fork") == 0) return forked();
  return 2;
}
