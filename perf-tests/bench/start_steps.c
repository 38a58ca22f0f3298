// start_steps N DIR: what the kernel steps of the shim's start and end cost in
// a fresh process. Starts itself N times (vfork + execve); each child times,
// with rdtsc, the steps in the order a shim'd image meets them, and the
// parent prints each step's median in microseconds (TSC rate from
// /proc/cpuinfo's "cpu MHz"). DIR must be a directory on the file system the
// run's image files use (/dev/shm).
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>

enum { kSteps = 12, kRegionBytes = 163840 };

static const char* const kNames[kSteps] = {
    "the first open (/dev/null)",
    "a second open (/dev/null)",
    "image file: open O_CREAT|O_EXCL",
    "image file: ftruncate",
    "image file: mmap MAP_SHARED",
    "image file: close",
    "image file: first touch",
    "anonymous Region: mmap",
    "anonymous Region: first touch",
    "readlink /proc/self/exe",
    "/proc/self/status: open, read",
    "image file: unlink",
};

static int by_value(const void* a, const void* b) {
  unsigned long x = *(const unsigned long*)a, y = *(const unsigned long*)b;
  return x < y ? -1 : x > y;
}

static double tsc_mhz(void) {
  FILE* f = fopen("/proc/cpuinfo", "r");
  char line[256];
  double mhz = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "cpu MHz : %lf", &mhz) == 1) break;
  if (f) fclose(f);
  return mhz;
}

#define TIMED(slot, expr)          \
  do {                             \
    unsigned long t0 = __rdtsc();  \
    expr;                          \
    r[slot] = __rdtsc() - t0;      \
  } while (0)

static void child(const char* dir, unsigned long* r) {
  static char link[4096];
  char path[256], status[4096];
  snprintf(path, sizeof path, "%s/%d-image", dir, getpid());
  int fd, other;
  TIMED(0, other = open("/dev/null", O_RDONLY | O_CLOEXEC));
  close(other);
  TIMED(1, other = open("/dev/null", O_RDONLY | O_CLOEXEC));
  close(other);
  TIMED(2, fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600));
  TIMED(3, if (ftruncate(fd, kRegionBytes) != 0) _exit(1));
  char* file;
  TIMED(4, file = mmap(NULL, kRegionBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  TIMED(5, close(fd));
  TIMED(6, file[0] = 1);
  char* anon;
  TIMED(7, anon = mmap(NULL, kRegionBytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  TIMED(8, anon[0] = 1);
  TIMED(9, if (readlink("/proc/self/exe", link, sizeof link - 1) < 0) _exit(1));
  TIMED(10, other = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
        if (pread(other, status, sizeof status - 1, 0) <= 0) _exit(1));
  TIMED(11, unlink(path));
}

int main(int argc, char** argv) {
  if (argc == 4) {  // a child: N DIR SLOT, the table on fd 3
    int n = atoi(argv[1]);
    unsigned long(*table)[kSteps] =
        mmap(NULL, sizeof(unsigned long) * kSteps * (size_t)n, PROT_READ | PROT_WRITE, MAP_SHARED, 3, 0);
    if (table == MAP_FAILED) return 1;
    child(argv[2], table[atoi(argv[3])]);
    return 0;
  }
  if (argc != 3) {
    fprintf(stderr, "usage: start_steps N DIR\n");
    return 2;
  }
  int n = atoi(argv[1]);
  mkdir(argv[2], 0700);
  int fd = memfd_create("start_steps", 0);
  size_t bytes = sizeof(unsigned long) * kSteps * (size_t)n;
  if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0 || (fd != 3 && dup2(fd, 3) != 3)) return 1;
  unsigned long(*table)[kSteps] = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, 3, 0);
  for (int i = 0; i < n; ++i) {
    char slot[16];
    snprintf(slot, sizeof slot, "%d", i);
    char* child_argv[] = {argv[0], argv[1], argv[2], slot, NULL};
    char* no_env[] = {NULL};
    pid_t pid = vfork();
    if (pid == 0) {
      execve("/proc/self/exe", child_argv, no_env);
      _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || status != 0) return 1;
  }
  double mhz = tsc_mhz();
  unsigned long* v = calloc((size_t)n, sizeof *v);
  printf("%-34s %8s %8s %8s   (%d fresh processes, TSC %.0f MHz)\n", "step", "median", "p25", "p75",
         n, mhz);
  for (int s = 0; s < kSteps; ++s) {
    for (int i = 0; i < n; ++i) v[i] = table[i][s];
    qsort(v, (size_t)n, sizeof *v, by_value);
    printf("%-34s %6.1f us %5.1f us %5.1f us\n", kNames[s], v[n / 2] / mhz, v[n / 4] / mhz,
           v[3 * n / 4] / mhz);
  }
  return 0;
}
