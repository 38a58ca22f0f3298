// tsync_refused CODE: a thread puts only itself in a seccomp sandbox that
// allows everything, with a raw system call (x86-64); then main asks for a sandbox for every thread
// (TSYNC) that kills on getrusage, prlimit64 and flock, which the kernel refuses (it names the
// thread it could not put in): main is in no sandbox. It allocates 1000 bytes and returns CODE.
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "end_sandbox.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_state;  // 1: the thread is in its sandbox; 2: main is done with it

static void* thread_sandbox(void* arg) {
  (void)arg;
  struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  struct sock_fprog program = {1, allow};
  // A raw system call, as programs with a sandbox of their own make them
  // (Chromium's): this sandbox is the thread's alone, unseen by the shim.
  long in;
  __asm__ volatile("syscall"
                   : "=a"(in)
                   : "0"((long)SYS_seccomp), "D"((long)SECCOMP_SET_MODE_FILTER), "S"(0L),
                     "d"(&program)
                   : "rcx", "r11", "memory");
  pthread_mutex_lock(&g_lock);
  g_state = in == 0 ? 1 : -1;
  pthread_cond_broadcast(&g_cond);
  while (g_state != 2) pthread_cond_wait(&g_cond, &g_lock);
  pthread_mutex_unlock(&g_lock);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 4;
  pthread_t thread;
  if (pthread_create(&thread, NULL, thread_sandbox, NULL) != 0) return 5;
  pthread_mutex_lock(&g_lock);
  while (g_state == 0) pthread_cond_wait(&g_cond, &g_lock);
  int ready = g_state;
  pthread_mutex_unlock(&g_lock);
  if (ready != 1) return 6;
  struct sock_fprog program = end_sandbox_program();
  long refused = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
  pthread_mutex_lock(&g_lock);
  g_state = 2;
  pthread_cond_broadcast(&g_cond);
  pthread_mutex_unlock(&g_lock);
  pthread_join(thread, NULL);
  if (refused <= 0) return 7;  // the kernel names the thread it could not put in
  void* volatile block = malloc(1000);
  free(block);
  return atoi(argv[1]);
}
