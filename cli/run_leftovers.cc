#include "run_leftovers.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <set>
#include <vector>

#include "image_directory.h"

namespace account {

namespace {

constexpr char kPrefix[] = "account-run-";

// The pid in account-run-PID-XXXXXX[.jsonl], or 0 for another name.
pid_t run_pid(const std::string& name) {
  if (name.rfind(kPrefix, 0) != 0) return 0;
  size_t at = sizeof kPrefix - 1, end = name.find('-', at);
  if (end == std::string::npos || end == at || end - at > 9) return 0;
  pid_t pid = 0;
  for (size_t i = at; i < end; ++i) {
    if (name[i] < '0' || name[i] > '9') return 0;
    pid = pid * 10 + (name[i] - '0');
  }
  return pid;
}

bool alive(pid_t pid) {
  return kill(pid, 0) == 0 || errno != ESRCH;
}

}  // namespace

std::string run_name_template(const std::string& base, const std::string& suffix) {
  return fmt::format("{}/{}{}-XXXXXX{}", base, kPrefix, getpid(), suffix);
}

std::vector<std::string> remove_dead_runs(const std::vector<std::string>& bases) {
  struct Leftover {
    int base_fd;
    std::string base, name;
    bool dir;
  };
  std::map<pid_t, std::vector<Leftover>> found;
  std::vector<int> base_fds;
  std::set<std::string> seen;
  for (const std::string& base : bases) {
    if (!seen.insert(base).second) continue;
    int base_fd = open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (base_fd < 0) continue;
    base_fds.push_back(base_fd);
    DIR* d = fdopendir(dup(base_fd));
    while (d) {
      dirent* e = readdir(d);
      if (!e) break;
      std::string name = e->d_name;
      pid_t pid = run_pid(name);
      struct stat st;
      if (pid <= 0 || pid == getpid() || alive(pid) ||
          fstatat(base_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid() ||
          !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
        continue;
      found[pid].push_back({base_fd, base, name, S_ISDIR(st.st_mode)});
    }
    if (d) closedir(d);
  }
  std::map<pid_t, std::vector<std::string>> removed;
  for (const auto& [pid, leftovers] : found) {
    // A run whose account run has ended may live on in its lingering sampler,
    // which holds its directory's lock: nothing of that pid is touched. The
    // locks taken here are held until its leftovers are gone.
    std::vector<int> claimed;
    bool in_use = false;
    for (const Leftover& l : leftovers) {
      if (!l.dir) continue;
      int fd = openat(l.base_fd, l.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) continue;
      claimed.push_back(fd);
      if (!ImageDirectory::claim(fd)) in_use = true;
    }
    for (const Leftover& l : leftovers) {
      if (in_use) break;
      bool gone = l.dir ? ImageDirectory::remove_all(l.base_fd, l.name.c_str())
                        : unlinkat(l.base_fd, l.name.c_str(), 0) == 0;
      if (gone) removed[pid].push_back(l.base + "/" + l.name);
    }
    for (int fd : claimed) close(fd);
  }
  for (int fd : base_fds) close(fd);
  std::vector<std::string> lines;
  for (const auto& [pid, paths] : removed)
    lines.push_back(fmt::format(
        "account: run: removed what account run {} left ({}): it was killed, and its tree "
        "record was never written",
        pid, fmt::join(paths, ", ")));
  return lines;
}

}  // namespace account
