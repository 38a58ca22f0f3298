#define _DEFAULT_SOURCE
// Forks 3 children and reaps with wait(-1) until ECHILD; prints "reaped R
// foreign F strange-signals S" where F counts reaped pids that are not its own
// children and S counts SIGCHLDs sent by any other process (SIGCHLD is not
// queued, so how many arrive varies; who sends them does not). Under the shim
// it must print "reaped 3 foreign 0 strange-signals 0".
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t strange;
static pid_t kids[3];
static void on_child(int sig, siginfo_t* info, void* ctx) {
  (void)sig, (void)ctx;
  if (info->si_pid != kids[0] && info->si_pid != kids[1] && info->si_pid != kids[2]) ++strange;
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_child;
  sa.sa_flags = SA_SIGINFO;
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGCHLD);
  sigprocmask(SIG_BLOCK, &block, &old);  // kids[] is complete before a handler runs
  sigaction(SIGCHLD, &sa, NULL);
  for (int i = 0; i < 3; ++i) {
    kids[i] = fork();
    if (kids[i] == 0) {
      usleep(20000);
      _exit(0);
    }
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  int reaped = 0, foreign = 0;
  for (;;) {
    pid_t p = wait(NULL);
    if (p < 0 && errno == EINTR) continue;
    if (p < 0) break;
    ++reaped;
    if (p != kids[0] && p != kids[1] && p != kids[2]) ++foreign;
  }
  usleep(50000);  // late signals would arrive here
  printf("reaped %d foreign %d strange-signals %d\n", reaped, foreign, (int)strange);
  return 0;
}
