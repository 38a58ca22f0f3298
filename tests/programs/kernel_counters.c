// Work with known kernel counters, for the record's minor_faults,
// voluntary_ctxsw and write_bytes (docs/counters.md):
//   kernel_counters pages N        touches N fresh anonymous pages
//   kernel_counters sleeps N       sleeps N times for 1 ms
//   kernel_counters write PATH M   writes M MiB to PATH and fsyncs it
//   kernel_counters child N        runs `kernel_counters write`'s work in a
//                                  child it waits for (N MiB to PATH.child)
//   kernel_counters spike MIB MS   after MS ms, touches MIB MiB of fresh
//                                  anonymous memory and unmaps it at once;
//                                  prints how long the spike lasted
//                                  (tests/cli/run_cgroup_test.cc)
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int write_file(const char* path, long mib) {
  static char block[1 << 20];
  memset(block, 'x', sizeof block);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 1;
  for (long i = 0; i < mib; ++i)
    if (write(fd, block, sizeof block) != (ssize_t)sizeof block) return 1;
  if (fsync(fd) != 0) return 1;
  return close(fd);
}

int main(int argc, char** argv) {
  if (argc >= 3 && strcmp(argv[1], "pages") == 0) {
    long n = atol(argv[2]);
    long page = sysconf(_SC_PAGESIZE);
    char* p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED) return 1;
    for (long i = 0; i < n; ++i) p[i * page] = 1;
    return 0;
  }
  if (argc >= 3 && strcmp(argv[1], "sleeps") == 0) {
    struct timespec ms = {0, 1000000};
    for (long i = atol(argv[2]); i > 0; --i) nanosleep(&ms, NULL);
    return 0;
  }
  if (argc >= 4 && strcmp(argv[1], "write") == 0) return write_file(argv[2], atol(argv[3]));
  if (argc >= 4 && strcmp(argv[1], "child") == 0) {
    pid_t pid = fork();
    if (pid == 0) _exit(write_file(argv[2], atol(argv[3])));
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  }
  if (argc >= 4 && strcmp(argv[1], "spike") == 0) {
    struct timespec delay = {atol(argv[3]) / 1000, atol(argv[3]) % 1000 * 1000000}, t0, t1;
    nanosleep(&delay, NULL);
    size_t size = (size_t)atol(argv[2]) << 20;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char* p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 1;
    madvise(p, size, MADV_HUGEPAGE);  // 2 MiB faults where the kernel allows: a shorter spike
    for (size_t i = 0; i < size; i += 4096) p[i] = 1;
    munmap(p, size);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("spike %.1f ms\n", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    return 0;
  }
  fprintf(stderr,
          "usage: kernel_counters pages N | sleeps N | write PATH MIB | child PATH MIB | spike MIB "
          "MS\n");
  return 2;
}
