// subreaper MODE: a child subreaper (PR_SET_CHILD_SUBREAPER), as process
// supervisors are, that reaps with wait() until no child is left.
//   quick     becomes one, lives 40 ms, forks 3 children that exit at once
//             with 10, 11 and 12, and reaps; prints "own=3 strangers=0" when
//             wait() returned exactly its 3 children
//   lasting   the same with children that live 40 ms each
//   exec      becomes one through syscall(SYS_prctl), lives 40 ms, then execs
//             itself as "after-exec" (the setting outlives the exec)
//   after-exec  prints "children=N" (all it has at once, even those only a
//             __WALL wait sees: the shim's starter of its new sampler, and
//             the sampler before the exec if that was left), lives 40 ms,
//             then reaps as quick does
// Each mode returns 0 once wait() says no child is left.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void live_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR) {
  }
}

// The children of this thread in /proc: the words of its children file.
static int count_children(void) {
  char path[64], text[4096];
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)gettid());
  FILE* f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  int words = 0;
  for (char* w = strtok(text, " \n"); w; w = strtok(0, " \n")) words++;
  return words;
}

static int reap_all(int child_ms) {
  pid_t kids[3];
  for (int i = 0; i < 3; i++) {
    kids[i] = fork();
    if (kids[i] < 0) return 1;
    if (kids[i] == 0) {
      live_ms(child_ms);
      _exit(10 + i);
    }
  }
  int own = 0, strangers = 0, status;
  pid_t pid;
  while ((pid = wait(&status)) > 0) {
    int mine = 0;
    for (int i = 0; i < 3; i++)
      if (pid == kids[i] && WIFEXITED(status) && WEXITSTATUS(status) == 10 + i) mine = 1;
    if (mine)
      own++;
    else
      strangers++;
  }
  if (errno != ECHILD) return 1;
  printf("own=%d strangers=%d\n", own, strangers);
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* mode = argv[1];
  if (strcmp(mode, "after-exec") == 0) {
    printf("children=%d\n", count_children());
    live_ms(40);
    return reap_all(0);
  }
  if (strcmp(mode, "exec") == 0) {
    if (syscall(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return 3;
    live_ms(40);
    execl("/proc/self/exe", argv[0], "after-exec", (char*)0);
    return 4;
  }
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) return 3;
  live_ms(40);
  if (strcmp(mode, "quick") == 0) return reap_all(0);
  if (strcmp(mode, "lasting") == 0) return reap_all(40);
  return 2;
}
