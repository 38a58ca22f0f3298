// Closes every descriptor, then daemonizes (fork, setsid, fork): the daemon
// allocates, writes its pid into MARKER (a file it creates) and exits.
// Usage: daemonize MARKER
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  close_range(0, ~0U, 0);
  pid_t pid = fork();
  if (pid < 0) return 3;
  if (pid > 0) _exit(0);
  setsid();
  pid = fork();
  if (pid < 0) _exit(3);
  if (pid > 0) exit(0);
  if (chdir("/") != 0) _exit(4);
  free(malloc(12345));
  char line[64];
  int n = snprintf(line, sizeof line, "%d\n", (int)getpid());
  int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, line, (size_t)n) != n) _exit(5);
  close(fd);
  return 0;
}
