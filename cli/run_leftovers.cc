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

// Its files, then itself; never through a link (O_NOFOLLOW, unlinkat).
bool remove_dir(int base_fd, const std::string& name) {
  int fd = openat(base_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  DIR* d = fdopendir(fd);
  if (!d) {
    close(fd);
    return false;
  }
  while (dirent* e = readdir(d)) {
    std::string entry = e->d_name;
    if (entry != "." && entry != "..") unlinkat(dirfd(d), entry.c_str(), 0);
  }
  closedir(d);
  return unlinkat(base_fd, name.c_str(), AT_REMOVEDIR) == 0;
}

}  // namespace

std::string run_name_template(const std::string& base, const std::string& suffix) {
  return fmt::format("{}/{}{}-XXXXXX{}", base, kPrefix, getpid(), suffix);
}

std::vector<std::string> remove_dead_runs(const std::vector<std::string>& bases) {
  std::map<pid_t, std::vector<std::string>> removed;
  std::set<std::string> seen;
  for (const std::string& base : bases) {
    if (!seen.insert(base).second) continue;
    int base_fd = open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (base_fd < 0) continue;
    DIR* d = fdopendir(dup(base_fd));
    while (d) {
      dirent* e = readdir(d);
      if (!e) break;
      std::string name = e->d_name;
      pid_t pid = run_pid(name);
      struct stat st;
      if (pid <= 0 || pid == getpid() || alive(pid) ||
          fstatat(base_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != geteuid())
        continue;
      bool gone = S_ISDIR(st.st_mode)   ? remove_dir(base_fd, name)
                  : S_ISREG(st.st_mode) ? unlinkat(base_fd, name.c_str(), 0) == 0
                                        : false;
      if (gone) removed[pid].push_back(base + "/" + name);
    }
    if (d) closedir(d);
    close(base_fd);
  }
  std::vector<std::string> lines;
  for (const auto& [pid, paths] : removed)
    lines.push_back(fmt::format(
        "account: run: removed what account run {} left ({}): it was killed, and its tree "
        "record was never written",
        pid, fmt::join(paths, ", ")));
  return lines;
}

}  // namespace account
