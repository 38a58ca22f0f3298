#define _GNU_SOURCE
// spawn_kill COUNT [CHILD_MS]: COUNT times, posix_spawns itself as
// "spawn_kill child CHILD_MS" (which mallocs 1000 bytes, sleeps CHILD_MS
// milliseconds, default 0, and exits 0) and SIGKILLs the child at once, or
// after a busy wait of (i % 10) * 100 microseconds, so that children die at
// every point of their first millisecond: in the dynamic loader, in the shim's
// start, in main, while it exits. Prints "child=PID killed=K" per child (K: 1
// if it died of SIGKILL, 0 if it exited 0 first).
// With ACCOUNT_RUN_DIR set it watches that directory with inotify from before
// the first spawn and then prints "file=NAME" for every file created in it:
// the image files, i.e. exactly the images whose shim started under account
// run. 50 ms later, for a failure message, "left=NAME size=S magic=M state=T"
// for each of those files still there (account run's sampler removes the file
// of an image it has recorded; magic and state: the first two 32-bit words,
// the Region's magic and image state, or -1 when shorter).
// Exit status 0 when every child either died of SIGKILL or exited 0.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "say.h"

extern char** environ;

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) return 2;
  const char* child_ms = argc > 2 ? argv[2] : "0";
  if (strcmp(argv[1], "child") == 0) {
    free(malloc(1000));
    long ms = atol(child_ms);
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (ms > 0 && nanosleep(&ts, &ts) != 0) {
    }
    return 0;
  }
  int count = atoi(argv[1]);
  const char* dir = getenv("ACCOUNT_RUN_DIR");
  int watch = -1;
  if (dir && *dir) {
    watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (watch < 0 || inotify_add_watch(watch, dir, IN_CREATE) < 0) return 3;
  }
  char* child_argv[] = {argv[0], "child", (char*)child_ms, NULL};
  int failed = 0;
  for (int i = 0; i < count; ++i) {
    pid_t pid;
    if (posix_spawn(&pid, argv[0], NULL, NULL, child_argv, environ) != 0) return 3;
    long long until = now_ns() + (i % 10) * 100000LL;
    while (now_ns() < until) {
    }
    kill(pid, SIGKILL);
    int status;
    if (waitpid(pid, &status, 0) != pid) return 4;
    int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    if (!killed && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) failed = 1;
    say("child=%d killed=%d\n", (int)pid, killed);
  }
  if (watch >= 0) {
    // Every event is queued by now: each file was created before its child
    // was reaped above. The queue (16384 events by default) cannot overflow.
    static char names[1024][64];
    int files = 0;
    char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n;
    while ((n = read(watch, buf, sizeof buf)) > 0) {
      for (char* p = buf; p < buf + n;) {
        struct inotify_event* e = (struct inotify_event*)p;
        if (e->mask & IN_Q_OVERFLOW) say("overflow=1\n");
        if (e->len) {
          say("file=%s\n", e->name);
          if (files < 1024) snprintf(names[files++], sizeof names[0], "%s", e->name);
        }
        p += sizeof *e + e->len;
      }
    }
    struct timespec pause = {0, 50 * 1000000L};
    while (nanosleep(&pause, &pause) != 0) {
    }
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (int i = 0; dir_fd >= 0 && i < files; ++i) {
      int fd = openat(dir_fd, names[i], O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      struct stat st;
      uint32_t head[2] = {0, 0};
      long long size = fstat(fd, &st) == 0 ? (long long)st.st_size : -1;
      int whole = read(fd, head, sizeof head) == (ssize_t)sizeof head;
      close(fd);
      say("left=%s size=%lld magic=%lld state=%lld\n", names[i], size,
          whole ? (long long)head[0] : -1LL, whole ? (long long)head[1] : -1LL);
    }
    if (dir_fd >= 0) close(dir_fd);
  }
  return failed;
}
