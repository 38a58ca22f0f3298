// exec (also through syscall(): process_syscalls.h), _exit and quick_exit:
// the ways a process image ends without running exit handlers. Each writes the image's record first
// (quick_exit after its own handlers), then does the real thing.
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "find_next.h"
#include "lifecycle.h"
#include "process_syscalls.h"
#include "raw_syscall.h"
#include "shim_reach.h"
#include "will_exec.h"

using namespace account;

namespace {

using ExecveFn = int (*)(const char*, char* const[], char* const[]);
using ExecvpeFn = int (*)(const char*, char* const[], char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);
using ExecveatFn = int (*)(int, const char*, char* const[], char* const[], int);

struct RealExec {
  ExecveFn execve;
  ExecvpeFn execvpe;
  FexecveFn fexecve;
  ExecveatFn execveat;
} g_exec;

using QuickExitFn = void (*)(int);
QuickExitFn g_next_quick_exit;

void resolve_exec() {
  if (g_exec.execve) return;
  find_next(&g_exec.execvpe, "execvpe");
  find_next(&g_exec.fexecve, "fexecve");
  find_next(&g_exec.execveat, "execveat");
  ExecveFn execve = nullptr;
  find_next(&execve, "execve");
  __atomic_store_n(&g_exec.execve, execve, __ATOMIC_RELEASE);
}

// Resolved at start-up: a vfork child must not call dlsym.
__attribute__((constructor(102))) void resolve_at_start() {
  resolve_exec();
  find_next(&g_next_quick_exit, "quick_exit");
}

// execl-style argument lists, gathered on the stack.
#define ACCOUNT_GATHER_ARGS(first, argv_name, after_null)                                \
  size_t count = 1;                                                                      \
  {                                                                                      \
    va_list ap;                                                                          \
    va_start(ap, first);                                                                 \
    while (va_arg(ap, const char*)) ++count;                                             \
    va_end(ap);                                                                          \
  }                                                                                      \
  char** argv_name = static_cast<char**>(__builtin_alloca((count + 1) * sizeof(char*))); \
  {                                                                                      \
    va_list ap;                                                                          \
    va_start(ap, first);                                                                 \
    argv_name[0] = const_cast<char*>(first);                                             \
    for (size_t i = 1; i <= count; ++i) argv_name[i] = va_arg(ap, char*);                \
    after_null;                                                                          \
    va_end(ap);                                                                          \
  }

}  // namespace

namespace account {

bool replaces_image(long number) {
  return number == SYS_execve || number == SYS_execveat;
}

long exec_by_syscall(SyscallFn next, long number, const long* a) {
  if (record_pending()) {
    if (number == SYS_execve)
      before_exec(exec_would_run(AT_FDCWD, reinterpret_cast<const char*>(a[0]), 0, false));
    else
      before_exec(exec_would_run(int(a[0]), reinterpret_cast<const char*>(a[1]),
                                 int(a[4]) & (AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW), false));
  }
  // The environment is execve's third argument, execveat's fourth.
  int env_at = number == SYS_execve ? 2 : 3;
  ACCOUNT_ENV_FOR_EXEC(reinterpret_cast<char* const*>(a[env_at]), env)
  long args[6] = {a[0], a[1], a[2], a[3], a[4], a[5]};
  args[env_at] = reinterpret_cast<long>(env);
  return exec_failed(int(next(number, args[0], args[1], args[2], args[3], args[4], args[5])));
}

}  // namespace account

extern "C" {

__attribute__((visibility("default"))) int execve(const char* path, char* const argv[],
                                                  char* const envp[]) {
  resolve_exec();
  if (record_pending()) before_exec(exec_would_run(AT_FDCWD, path, 0, false));
  ACCOUNT_ENV_FOR_EXEC(envp, env)
  return exec_failed(g_exec.execve(path, argv, env));
}

__attribute__((visibility("default"))) int execv(const char* path, char* const argv[]) {
  return execve(path, argv, environ);
}

__attribute__((visibility("default"))) int execvpe(const char* file, char* const argv[],
                                                   char* const envp[]) {
  resolve_exec();
  if (record_pending()) before_exec(exec_would_run_on_path(file));
  ACCOUNT_ENV_FOR_EXEC(envp, env)
  return exec_failed(g_exec.execvpe(file, argv, env));
}

__attribute__((visibility("default"))) int execvp(const char* file, char* const argv[]) {
  return execvpe(file, argv, environ);
}

__attribute__((visibility("default"))) int execl(const char* path, const char* arg, ...) {
  ACCOUNT_GATHER_ARGS(arg, argv, (void)0)
  return execve(path, argv, environ);
}

__attribute__((visibility("default"))) int execlp(const char* file, const char* arg, ...) {
  ACCOUNT_GATHER_ARGS(arg, argv, (void)0)
  return execvpe(file, argv, environ);
}

__attribute__((visibility("default"))) int execle(const char* path, const char* arg, ...) {
  char** envp;
  ACCOUNT_GATHER_ARGS(arg, argv, envp = va_arg(ap, char**))
  return execve(path, argv, envp);
}

__attribute__((visibility("default"))) int fexecve(int fd, char* const argv[], char* const envp[]) {
  resolve_exec();
  if (record_pending()) before_exec(exec_would_run(fd, "", AT_EMPTY_PATH, false));
  ACCOUNT_ENV_FOR_EXEC(envp, env)
  return exec_failed(g_exec.fexecve(fd, argv, env));
}

__attribute__((visibility("default"))) int execveat(int dirfd, const char* path, char* const argv[],
                                                    char* const envp[], int flags) {
  resolve_exec();
  int stat_flags = flags & (AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
  if (record_pending()) before_exec(exec_would_run(dirfd, path, stat_flags, false));
  ACCOUNT_ENV_FOR_EXEC(envp, env)
  return exec_failed(g_exec.execveat(dirfd, path, argv, env, flags));
}

__attribute__((visibility("default"), noreturn)) void _exit(int status) {
  Ending ending;
  ending.kind = EndKind::kExit;
  ending.code = status & 0xff;
  finish(ending);
  for (;;) raw_syscall(SYS_exit_group, status);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status) {
  _exit(status);
}

__attribute__((visibility("default"), noreturn)) void quick_exit(int status) noexcept {
  quick_exit_called(status);
  if (!g_next_quick_exit) resolve_at_start();
  g_next_quick_exit(status);
  for (;;) raw_syscall(SYS_exit_group, status);
}

}  // extern "C"
