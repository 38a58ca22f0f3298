#include "will_exec.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text_buffer.h"

namespace account {

namespace {

constexpr int kMaxInterpreterDepth = 4;  // the kernel's own limit for nested #!

bool check(int dirfd, const char* path, int flags, bool shell_fallback, int depth) {
  struct stat st;
  if (fstatat(dirfd, path, &st, flags) != 0 || !S_ISREG(st.st_mode)) return false;
  if (!(flags & AT_EMPTY_PATH) && faccessat(dirfd, path, X_OK, AT_EACCESS) != 0) return false;
  int fd = (flags & AT_EMPTY_PATH) ? dirfd : openat(dirfd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;  // execute-only: cannot look inside, assume it runs
  char head[256];
  ssize_t n = pread(fd, head, sizeof head - 1, 0);
  if (!(flags & AT_EMPTY_PATH)) close(fd);
  if (n >= 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F') return true;
  if (n >= 2 && head[0] == '#' && head[1] == '!') {
    if (depth >= kMaxInterpreterDepth) return false;
    head[n] = 0;
    char* p = head + 2;
    while (*p == ' ' || *p == '\t') ++p;
    char* end = p;
    while (*end && *end != ' ' && *end != '\t' && *end != '\n') ++end;
    *end = 0;
    return *p && check(AT_FDCWD, p, 0, false, depth + 1);
  }
  return shell_fallback;
}

}  // namespace

bool exec_would_run(int dirfd, const char* path, int flags, bool shell_fallback) {
  return check(dirfd, path, flags, shell_fallback, 0);
}

bool exec_would_run_on_path(const char* file) {
  for (const char* p = file; *p; ++p)
    if (*p == '/') return exec_would_run(AT_FDCWD, file, 0, true);
  if (!*file) return false;
  const char* path = getenv("PATH");
  if (!path) path = "/bin:/usr/bin";
  char candidate[4096];
  for (const char* dir = path;; ++dir) {
    const char* end = dir;
    while (*end && *end != ':') ++end;
    TextBuffer b(candidate, sizeof candidate - 1);
    if (end == dir)
      b.put('.');
    else
      b.put(dir, size_t(end - dir));
    b.put('/');
    b.put(file);
    candidate[b.size()] = 0;
    if (!b.overflowed() && exec_would_run(AT_FDCWD, candidate, 0, true)) return true;
    if (!*end) return false;
    dir = end;
  }
}

}  // namespace account
