#include "run_cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

namespace account {

namespace {

constexpr char kGroupPrefix[] = "account-run-";

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

bool contains(const std::vector<std::string>& items, std::string_view item) {
  for (const std::string& i : items)
    if (i == item) return true;
  return false;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape_octal(std::string_view s) {
  auto octal = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && s.size() - i >= 4 && octal(s[i + 1]) && octal(s[i + 2]) &&
        octal(s[i + 3])) {
      out.push_back(char((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

struct Mount {
  std::string root, point, type;
  std::vector<std::string> options;  // the super options: the v1 controllers
};

std::vector<Mount> cgroup_mounts(const std::string& proc) {
  std::vector<Mount> mounts;
  std::ifstream in(proc + "/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = split(line, ' ');
    size_t dash = 0;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash < 5 || dash + 3 >= f.size()) continue;
    const std::string& type = f[dash + 1];
    if (type != "cgroup" && type != "cgroup2") continue;
    mounts.push_back({unescape_octal(f[3]), unescape_octal(f[4]), type, split(f[dash + 3], ',')});
  }
  return mounts;
}

// A group's directory: the mount point and the group's path under the mount's root.
std::string group_dir(const Mount& m, const std::string& path) {
  std::string rel = path;
  if (m.root != "/" && rel.compare(0, m.root.size(), m.root) == 0) rel = rel.substr(m.root.size());
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  return m.point + rel;
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::optional<uint64_t> read_count(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::nullopt;
  char buf[32];
  ssize_t n = read(fd, buf, sizeof buf);
  close(fd);
  uint64_t v = 0;
  if (n <= 0 || std::from_chars(buf, buf + n, v).ec != std::errc()) return std::nullopt;
  return v;
}

bool write_text(const std::string& path, std::string_view text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  bool ok = write(fd, text.data(), text.size()) == ssize_t(text.size());
  close(fd);
  return ok;
}

// Groups of runs whose account run is gone (SIGKILLed before its cleanup):
// empty ones are removed, a busy one stays (rmdir says EBUSY).
void remove_dead_groups(const std::string& parent) {
  DIR* d = opendir(parent.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    std::string_view name = e->d_name;
    if (name.substr(0, sizeof kGroupPrefix - 1) != kGroupPrefix) continue;
    std::string_view rest = name.substr(sizeof kGroupPrefix - 1);
    pid_t pid = 0;
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
    if (ec != std::errc() || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // its account run lives
    rmdir((parent + "/" + std::string(name)).c_str());
  }
  closedir(d);
}

}  // namespace

std::optional<CgroupPlace> find_cgroup_place(std::string* why, const std::string& proc) {
  std::vector<Mount> mounts = cgroup_mounts(proc);
  std::string v2_path, memory_path, pids_path;
  bool have_v2 = false;
  std::ifstream in(proc + "/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::vector<std::string> controllers = split(line.substr(a + 1, b - a - 1), ',');
    std::string path = line.substr(b + 1);
    if (line.compare(0, a, "0") == 0 && controllers == std::vector<std::string>{""})
      v2_path = path, have_v2 = true;
    if (contains(controllers, "memory")) memory_path = path;
    if (contains(controllers, "pids")) pids_path = path;
  }
  CgroupPlace place;
  // v2 first: its group must hand the memory controller to its children.
  for (const Mount& m : mounts) {
    if (m.type != "cgroup2" || !have_v2) continue;
    std::string dir = group_dir(m, v2_path);
    std::ifstream sub(dir + "/cgroup.subtree_control");
    std::string controllers;
    std::getline(sub, controllers);
    if (contains(split(controllers, ' '), "memory")) {
      place.memory_parent = dir;
      place.memory_peak = "memory.peak";
      place.v2 = true;
      return place;
    }
  }
  for (const Mount& m : mounts) {
    if (m.type != "cgroup") continue;
    if (contains(m.options, "memory") && !memory_path.empty()) {
      place.memory_parent = group_dir(m, memory_path);
      place.memory_peak = "memory.max_usage_in_bytes";
    }
    if (contains(m.options, "pids") && !pids_path.empty())
      place.pids_parent = group_dir(m, pids_path);
  }
  if (place.memory_parent.empty()) {
    *why = have_v2 ? "this process's cgroup v2 group does not delegate the memory controller "
                     "(cgroup.subtree_control) and no cgroup v1 memory hierarchy is mounted"
                   : "no cgroup memory controller is mounted";
    return std::nullopt;
  }
  return place;
}

std::unique_ptr<RunCgroup> RunCgroup::make(const CgroupPlace& place, unsigned run,
                                           std::string* why) {
  std::unique_ptr<RunCgroup> cg(new RunCgroup);
  std::string name = fmt::format("{}{}-{}", kGroupPrefix, getpid(), run);
  std::vector<std::string> parents = {place.memory_parent};
  if (!place.pids_parent.empty()) parents.push_back(place.pids_parent);
  for (size_t i = 0; i < parents.size(); ++i) {
    const std::string& parent = parents[i];
    remove_dead_groups(parent);
    std::string dir = parent + "/" + name;
    if (mkdir(dir.c_str(), 0755) != 0 &&
        !(errno == EEXIST && rmdir(dir.c_str()) == 0 && mkdir(dir.c_str(), 0755) == 0)) {
      // The pids group is a bonus: its failure costs pids_peak alone.
      if (i > 0) break;
      *why = fmt::format("cannot make {}: {}", dir, std::strerror(errno));
      return nullptr;
    }
    cg->groups_.push_back({dir, parent});
    int fd = open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
      *why = fmt::format("cannot open {}/cgroup.procs: {}", dir, std::strerror(errno));
      return nullptr;  // the destructor removes what was made
    }
    cg->procs_fds_.push_back(fd);
  }
  const std::string& memory_dir = cg->groups_[0].dir;
  cg->memory_peak_path_ = memory_dir + "/" + place.memory_peak;
  if (!exists(cg->memory_peak_path_)) {
    *why = fmt::format("{} has no {} (a kernel before 5.19 keeps no peak in cgroup v2)", memory_dir,
                       place.memory_peak);
    return nullptr;
  }
  std::string pids_dir = place.v2 ? memory_dir : cg->groups_.size() > 1 ? cg->groups_[1].dir : "";
  if (!pids_dir.empty() && exists(pids_dir + "/pids.peak"))
    cg->pids_peak_path_ = pids_dir + "/pids.peak";
  return cg;
}

RunCgroup::~RunCgroup() {
  if (owned_) remove();
  for (int fd : procs_fds_) close(fd);
}

CgroupPeaks RunCgroup::peaks() const {
  CgroupPeaks p;
  p.memory_bytes = read_count(memory_peak_path_);
  if (!pids_peak_path_.empty()) p.pids = read_count(pids_peak_path_);
  return p;
}

void RunCgroup::remove() {
  for (const Group& g : groups_) {
    // A process still in the group (one that escaped the tree and outlived
    // it) goes to the parent group, as if the run had never made one.
    for (int attempt = 0; attempt < 10 && rmdir(g.dir.c_str()) != 0 && errno == EBUSY; ++attempt) {
      std::ifstream procs(g.dir + "/cgroup.procs");
      std::string pid;
      while (std::getline(procs, pid)) write_text(g.parent + "/cgroup.procs", pid);
    }
  }
  groups_.clear();
}

}  // namespace account
