// Drops to nobody (uid and gid 65534) by system calls of its own, as a Go
// program's syscall.Setuid does, never through glibc's setuid family, then
// execs argv[1..]: under a root account run no directory is made for nobody
// (libaccount/interpose_setuid.cc), so the program runs without the shim.
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (syscall(SYS_setgroups, 0, 0) != 0 || syscall(SYS_setresgid, 65534, 65534, 65534) != 0 ||
      syscall(SYS_setresuid, 65534, 65534, 65534) != 0)
    return 3;
  execv(argv[1], argv + 1);
  return 4;
}
