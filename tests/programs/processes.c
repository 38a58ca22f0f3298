#define _GNU_SOURCE
// Process life cycles with known allocations, one per mode (argv[1]):
//   fork           parent: 3x malloc(1000) before, 2x malloc(3000)+free after,
//                  memcpy 333; child: 5x malloc(2000)+free, memcpy 777, exit(7)
//   fork_exit_     child: malloc(123), _exit(9); parent returns 0
//   fork_exec P    child: malloc(500), execl(P); parent waits, returns 0
//   exec_missing P malloc(64), execl("/nonexistent/...") fails, execl(P)
//   execvp NAME    malloc(64), execvp(NAME) (the test sets PATH)
//   exec_fail S    execl(S) fails although S is an executable file (S's
//                  interpreter is missing), malloc(64), return 3
//   exec_e2big P   execl(P) with a 200 KiB argument fails (E2BIG) after the
//                  shim wrote its record; prints the descriptors above 2 open
//                  before and after ("fds_before=3,4 fds_after=3,4"), return 3
//   spawn P        malloc(10), posix_spawn(P), wait, free, return 0
//   vfork_exec P   vfork, child execl(P); parent waits, returns 0
//   vfork_exit     vfork, child _exit(5); parent waits, returns 0
//   exit N | _exit N | _Exit N | return N | quick_exit N | exit_group N |
//   altstack_exit N | raw_exit_group N
//                  malloc(11), then leave that way (exit_group: the system
//                  call through syscall(); altstack_exit: _exit from a signal
//                  handler on an alternate stack of 6 KiB, a guard page below;
//                  raw_exit_group: the system call instruction itself, as Go's
//                  runtime ends a program: no code of libc's or the shim's runs)
//   signal N [MS]  malloc(11), sleep MS milliseconds (default 0), raise(N)
//                  with the default action
//   affinity       prints "cpus=<n>" (CPUs it may run on), then for each child
//                  listed in its children file (the shim's helper, if any)
//                  "helper=<pid> helper_cpus=<n>"
// Each prints "pid=<own pid>" first and "child=<pid> status=<n>" for a child.
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "say.h"

extern char** environ;

static char src[1024], dst[1024];

static void wait_for(pid_t child) {
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  say("child=%d status=%d\n", (int)child,
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

// The open descriptors from 3 to 63, as "3,4,".
static void open_fds(char* out, size_t size) {
  size_t used = 0;
  out[0] = 0;
  for (int fd = 3; fd < 64 && used + 4 < size; ++fd)
    if (fcntl(fd, F_GETFD) >= 0) used += (size_t)snprintf(out + used, size - used, "%d,", fd);
}

static int cpus_of(pid_t pid) {
  cpu_set_t set;
  if (sched_getaffinity(pid, sizeof set, &set) != 0) return -1;
  return CPU_COUNT(&set);
}

static void print_affinity(void) {
  say("cpus=%d\n", cpus_of(0));
  char path[64], text[256];
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  int fd = open(path, O_RDONLY);
  ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
  if (fd >= 0) close(fd);
  if (n <= 0) return;
  text[n] = 0;
  for (char* p = text; *p;) {
    long child = strtol(p, &p, 10);
    if (child > 0) say("helper=%ld helper_cpus=%d\n", child, cpus_of((pid_t)child));
    while (*p == ' ') ++p;
  }
}

static int g_altstack_code;

#if defined(__x86_64__)
static void raw_exit_group(int code) {
  __asm__ volatile("syscall" : : "a"(SYS_exit_group), "D"(code) : "rcx", "r11", "memory");
  __builtin_unreachable();
}
#else
#error "raw_exit_group: the exit_group system call instruction for this architecture"
#endif

static void exit_from_handler(int sig) {
  (void)sig;
  _exit(g_altstack_code);
}

// Room for the kernel's signal frame (AT_MINSIGSTKSZ) and 2 KiB more, at
// least 6 KiB: enough for the program itself, less than the shim's record takes.
static void exit_on_alternate_stack(int code) {
  size_t size = getauxval(AT_MINSIGSTKSZ) + 2048;
  if (size < 6144) size = 6144;
  size = (size + 4095) / 4096 * 4096 - 2048;
  char* m = mmap(NULL, 4096 + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || mprotect(m, 4096, PROT_NONE) != 0) exit(90);
  stack_t ss = {.ss_sp = m + 4096, .ss_size = size, .ss_flags = 0};
  if (sigaltstack(&ss, NULL) != 0) exit(91);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = exit_from_handler;
  sa.sa_flags = SA_ONSTACK;
  sigaction(SIGUSR1, &sa, NULL);
  g_altstack_code = code;
  raise(SIGUSR1);
  exit(92);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* mode = argv[1];
  const char* arg = argc > 2 ? argv[2] : "0";
  say("pid=%d\n", (int)getpid());

  if (strcmp(mode, "fork") == 0) {
    void* before[3];
    for (int i = 0; i < 3; ++i) before[i] = malloc(1000);
    pid_t child = fork();
    if (child == 0) {
      for (int i = 0; i < 5; ++i) free(malloc(2000));
      memcpy(dst, src, 777);
      exit(7);
    }
    wait_for(child);
    for (int i = 0; i < 2; ++i) free(malloc(3000));
    memcpy(dst, src, 333);
    (void)before;
    return 0;
  }
  if (strcmp(mode, "fork_exit_") == 0) {
    pid_t child = fork();
    if (child == 0) {
      volatile void* p = malloc(123);
      (void)p;
      _exit(9);
    }
    wait_for(child);
    return 0;
  }
  if (strcmp(mode, "fork_exec") == 0) {
    pid_t child = fork();
    if (child == 0) {
      volatile void* p = malloc(500);
      (void)p;
      execl(arg, arg, (char*)NULL);
      _exit(127);
    }
    wait_for(child);
    return 0;
  }
  if (strcmp(mode, "exec_missing") == 0) {
    volatile void* p = malloc(64);
    (void)p;
    execl("/nonexistent/account-test-program", "missing", (char*)NULL);
    execl(arg, arg, (char*)NULL);
    return 127;
  }
  if (strcmp(mode, "execvp") == 0) {
    volatile void* p = malloc(64);
    (void)p;
    char* args[] = {(char*)arg, NULL};
    execvp(arg, args);
    return 127;
  }
  if (strcmp(mode, "exec_fail") == 0) {
    execl(arg, arg, (char*)NULL);
    say("exec failed: errno=%d\n", errno);
    volatile void* p = malloc(64);
    (void)p;
    return 3;
  }
  if (strcmp(mode, "exec_e2big") == 0) {
    static char big[200 * 1024];  // above the kernel's 128 KiB for one argument
    memset(big, 'x', sizeof big - 1);
    char before[256], after[256];
    open_fds(before, sizeof before);
    execl(arg, arg, big, (char*)NULL);
    int err = errno;
    open_fds(after, sizeof after);
    say("exec failed: errno=%d fds_before=%s fds_after=%s\n", err, before, after);
    return 3;
  }
  if (strcmp(mode, "spawn") == 0) {
    void* p = malloc(10);
    pid_t child;
    char* args[] = {(char*)arg, NULL};
    int rc = posix_spawn(&child, arg, NULL, NULL, args, environ);
    if (rc != 0) return 4;
    wait_for(child);
    free(p);
    return 0;
  }
  if (strcmp(mode, "vfork_exec") == 0) {
    pid_t child = vfork();
    if (child == 0) {
      execl(arg, arg, (char*)NULL);
      _exit(127);
    }
    wait_for(child);
    return 0;
  }
  if (strcmp(mode, "vfork_exit") == 0) {
    pid_t child = vfork();
    if (child == 0) _exit(5);
    wait_for(child);
    return 0;
  }
  int n = atoi(arg);
  volatile void* p = malloc(11);
  (void)p;
  if (strcmp(mode, "affinity") == 0) {
    print_affinity();
    return 0;
  }
  if (strcmp(mode, "exit") == 0) exit(n);
  if (strcmp(mode, "_exit") == 0) _exit(n);
  if (strcmp(mode, "_Exit") == 0) _Exit(n);
  if (strcmp(mode, "altstack_exit") == 0) exit_on_alternate_stack(n);
  if (strcmp(mode, "return") == 0) return n;
  if (strcmp(mode, "quick_exit") == 0) quick_exit(n);
  if (strcmp(mode, "exit_group") == 0) syscall(SYS_exit_group, n);
  if (strcmp(mode, "raw_exit_group") == 0) raw_exit_group(n);
  if (strcmp(mode, "signal") == 0) {
    signal(n, SIG_DFL);
    if (argc > 3) usleep((useconds_t)atoi(argv[3]) * 1000);
    raise(n);
    return 99;
  }
  return 2;
}
