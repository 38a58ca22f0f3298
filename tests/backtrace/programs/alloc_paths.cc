// Three call paths with known large allocations, for the backtrace tests:
// small_once (1 MiB, under a 10M threshold), big_once (20 MiB once) and
// big_twice (20 MiB twice from one call site).
//
//   alloc_paths paths    the three paths once
//   alloc_paths threads  the three paths on each of 8 threads
//   alloc_paths fork     big_twice, then fork: the child runs big_once, the
//                        parent waits and runs small_once
//   alloc_paths kill     big_twice, then SIGKILL: the sampler writes the record
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

namespace alloc_paths {

constexpr size_t kMiB = 1024 * 1024;
void* volatile sink;
volatile int twice = 2;  // a real loop: one call site, two calls

__attribute__((noinline)) void allocate(size_t bytes) {
  void* p = malloc(bytes);
  memset(p, 1, 64);
  sink = p;
  free(p);
  asm volatile("");  // not a tail call: each path keeps its own frame
}

__attribute__((noinline)) void small_once() {
  allocate(1 * kMiB);
  asm volatile("");
}

__attribute__((noinline)) void big_once() {
  allocate(20 * kMiB);
  asm volatile("");
}

__attribute__((noinline)) void big_twice() {
  for (int i = 0; i < twice; ++i) allocate(20 * kMiB);
  asm volatile("");
}

__attribute__((noinline)) void all_paths() {
  small_once();
  big_once();
  big_twice();
  asm volatile("");
}

void* thread_main(void*) {
  all_paths();
  return nullptr;
}

int run_threads() {
  pthread_t threads[8];
  for (pthread_t& t : threads)
    if (pthread_create(&t, nullptr, thread_main, nullptr) != 0) return 1;
  for (pthread_t& t : threads) pthread_join(t, nullptr);
  return 0;
}

int run_fork() {
  big_twice();
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    big_once();
    exit(0);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child || status != 0) return 1;
  small_once();
  return 0;
}

}  // namespace alloc_paths

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "paths";
  if (strcmp(mode, "paths") == 0) {
    alloc_paths::all_paths();
    return 0;
  }
  if (strcmp(mode, "threads") == 0) return alloc_paths::run_threads();
  if (strcmp(mode, "fork") == 0) return alloc_paths::run_fork();
  if (strcmp(mode, "kill") == 0) {
    alloc_paths::big_twice();
    raise(SIGKILL);
  }
  fprintf(stderr, "usage: alloc_paths paths|threads|fork\n");
  return 2;
}
