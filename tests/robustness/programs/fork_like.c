// fork_like HOW CODE: makes one child process in the way HOW names, without
// fork() (whose handlers the shim registers with pthread_atfork), except for
// HOW=fork, the control:
//   fork          fork()
//   _Fork         glibc's _Fork(), which runs no fork handlers
//   syscall-clone syscall(SYS_clone, SIGCHLD, 0, ...)
//   syscall-clone3 syscall(SYS_clone3, {.exit_signal = SIGCHLD}, ...)
//   syscall-fork  syscall(SYS_fork)
//   clone         glibc's clone() with a stack of its own; the child's function
//                 returns CODE (glibc then ends it with the exit system call)
//   clone-exit    the same, the function calls exit(CODE)
//   clone-4k      clone() with a stack of 4 KiB, as runc's nsexec gives it
// The child allocates 700 blocks of 100 bytes, frees them, copies 50 bytes
// 300 times and ends with CODE; the parent waits for it, allocates 10 blocks
// of 1000 bytes and returns 0 if the child's status was CODE (1 if not).
#define _GNU_SOURCE
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int g_code;
static char g_stack[256 * 1024] __attribute__((aligned(16)));

static void child_work(void) {
  for (int i = 0; i < 700; i++) {
    void* volatile block = malloc(100);
    free(block);
  }
  char from[50] = {1}, to[50];
  for (int i = 0; i < 300; i++) memcpy(to, from, sizeof from);
}

static int child_returns(void* arg) {
  (void)arg;
  child_work();
  return g_code;
}

static int child_exits(void* arg) {
  (void)arg;
  child_work();
  exit(g_code);
}

static pid_t make_child(const char* how) {
  if (strcmp(how, "fork") == 0) return fork();
  if (strcmp(how, "_Fork") == 0) return _Fork();
  if (strcmp(how, "syscall-clone") == 0) return syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
  if (strcmp(how, "syscall-fork") == 0) return syscall(SYS_fork);
  if (strcmp(how, "syscall-clone3") == 0) {
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.exit_signal = SIGCHLD;
    return syscall(SYS_clone3, &args, sizeof args);
  }
  char* top = g_stack + sizeof g_stack;
  if (strcmp(how, "clone") == 0) return clone(child_returns, top, SIGCHLD, 0);
  if (strcmp(how, "clone-exit") == 0) return clone(child_exits, top, SIGCHLD, 0);
  if (strcmp(how, "clone-4k") == 0) return clone(child_returns, g_stack + 4096, SIGCHLD, 0);
  return -2;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  g_code = atoi(argv[2]);
  pid_t child = make_child(argv[1]);
  if (child == -2) return 2;
  if (child == 0) {
    child_work();
    exit(g_code);
  }
  int status;
  if (child < 0 || waitpid(child, &status, 0) != child) return 1;
  for (int i = 0; i < 10; i++) {
    void* volatile block = malloc(1000);
    free(block);
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == g_code ? 0 : 1;
}
