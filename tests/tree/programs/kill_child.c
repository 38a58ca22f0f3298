#define _GNU_SOURCE
// kill_child MODE CHUNKS CHUNK_BYTES HOLD_MS REAP_MS: forks a child that
// mallocs CHUNKS blocks of CHUNK_BYTES, writes every byte, and then dies of
// SIGKILL:
// MODE "self": the child raise(SIGKILL)s itself at once (HOLD_MS unused);
// MODE "parent": the child tells the parent it holds the memory (a pipe) and
// waits; the parent waits HOLD_MS more and SIGKILLs it.
// The parent then leaves the dead child a zombie for REAP_MS milliseconds
// before it reaps it (0: reaps at once, as a shell does).
// The child does nothing else that allocates, so its malloc counters are
// exactly CHUNKS calls and CHUNKS * CHUNK_BYTES bytes. Prints "child=PID" and
// "signal=S" (how the child died, from waitpid); exit status 0 when it died
// of SIGKILL.
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "say.h"

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int main(int argc, char** argv) {
  if (argc != 6) return 2;
  int self = strcmp(argv[1], "self") == 0;
  long chunks = atol(argv[2]);
  size_t chunk = (size_t)atol(argv[3]);
  long hold = atol(argv[4]), reap = atol(argv[5]);
  int ready[2];
  if (pipe(ready) != 0) return 3;
  pid_t pid = fork();
  if (pid < 0) return 3;
  if (pid == 0) {
    for (long i = 0; i < chunks; ++i) memset(malloc(chunk), 1, chunk);
    if (self) raise(SIGKILL);
    char c = 1;
    if (write(ready[1], &c, 1) != 1) _exit(4);
    for (;;) pause();
  }
  close(ready[1]);
  say("child=%d\n", (int)pid);
  if (!self) {
    char c;
    if (read(ready[0], &c, 1) != 1) return 4;
    sleep_ms(hold);
    kill(pid, SIGKILL);
  }
  if (reap > 0) {
    siginfo_t info;
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) != 0) return 5;
    sleep_ms(reap);
  }
  int status;
  if (waitpid(pid, &status, 0) != pid) return 5;
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  say("signal=%d\n", sig);
  return sig == SIGKILL ? 0 : 1;
}
