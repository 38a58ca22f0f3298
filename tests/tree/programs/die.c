// die SIGNAL [DELAY_MS]: allocates a little, then kills itself with SIGNAL
// (9: SIGKILL, 11: SIGSEGV by a real invalid access, 6: abort()).
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  int sig = atoi(argv[1]);
  for (int i = 0; i < 100; ++i) free(malloc(1000));
  char* buf = malloc(1 << 20);
  memset(buf, 1, 1 << 20);
  if (argc > 2) usleep((useconds_t)atoi(argv[2]) * 1000);
  if (sig == 11) *(volatile int*)0 = 1;
  if (sig == 6) abort();
  kill(getpid(), sig);
  return 0;
}
