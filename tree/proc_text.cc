#include "proc_text.h"

#include <fcntl.h>
#include <unistd.h>

namespace account {

std::string read_proc_text(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      if (n < 0) text.clear();  // a partial read of a vanishing process is no answer
      break;
    }
    text.append(buf, size_t(n));
  }
  close(fd);
  return text;
}

}  // namespace account
