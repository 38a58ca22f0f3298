// A process whose main thread ends first: main starts a worker and calls
// pthread_exit, as the idiom for "the process lives as long as its threads"
// goes. /proc/<pid> then reads as a zombie's (state Z, statm all zeros, no
// Vm lines in status) while the process lives on. The worker waits 50 ms,
// mallocs and touches 40 MiB, holds it 300 ms, then ends the process:
//   leader_exits N         exit(N)
//   leader_exits N kill    raise(SIGKILL)
// It prints "pid=<pid>" first.
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "say.h"

static int g_code;
static int g_kill;

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
  while (nanosleep(&t, &t) != 0) {
  }
}

static void* worker(void* arg) {
  (void)arg;
  sleep_ms(50);
  size_t size = (size_t)40 << 20;
  char* block = malloc(size);
  if (!block) exit(90);
  memset(block, 1, size);
  sleep_ms(300);
  if (g_kill) raise(SIGKILL);
  exit(g_code + block[size - 1] - 1);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  g_code = atoi(argv[1]);
  g_kill = argc > 2 && strcmp(argv[2], "kill") == 0;
  say("pid=%d\n", (int)getpid());
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0) return 91;
  pthread_exit(NULL);
}
