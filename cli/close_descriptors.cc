#include "close_descriptors.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace account {

void close_descriptors_except(const std::function<bool(int)>& keep) {
  // Listed first, closed after: closing while reading would close the listing's own.
  std::vector<int> fds;
  if (DIR* dir = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(dir))
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9') fds.push_back(std::atoi(e->d_name));
    closedir(dir);
  }
  for (int fd : fds)
    if (!keep(fd)) close(fd);
}

}  // namespace account
