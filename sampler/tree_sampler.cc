#include "tree_sampler.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <sstream>
#include <string>

#include "proc_files.h"
#include "proc_text.h"

namespace account {

std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(task_dir.c_str());
  if (!dir) return out;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::istringstream in(read_proc_text(task_dir + "/" + e->d_name + "/children"));
    long child;
    while (in >> child) out.push_back(pid_t(child));
  }
  closedir(dir);
  return out;
}

bool is_shim_sampler(pid_t pid) {
  std::string text = read_proc_text("/proc/" + std::to_string(pid) + "/stat");
  if (text.find("(account-sampler)") != std::string::npos) return true;
  // The shim's short-lived first clone has no exit signal and is a copy of its
  // parent until it renames itself.
  CpuAndExit stat;
  return parse_stat(text.c_str(), &stat) && stat.exit_signal == 0;
}

void TreeSampler::sample() {
  uint64_t size = 0, rss = 0;
  live_.clear();
  samplers_alive_ = 0;
  std::vector<pid_t> pending = children_of(root_);
  while (!pending.empty()) {
    pid_t pid = pending.back();
    pending.pop_back();
    if (is_shim_sampler(pid)) {
      ++samplers_alive_;
      continue;
    }
    int fd = open_proc_file(pid, "statm");
    MemoryNow now;
    bool alive = read_statm(fd, &now) && now.size_bytes > 0;
    if (fd >= 0) close(fd);
    if (!alive) continue;  // gone, or a zombie (its statm reads all zeros)
    size += now.size_bytes;
    rss += now.resident_bytes;
    live_.push_back(pid);
    seen_.insert(pid);
    for (pid_t c : children_of(pid)) pending.push_back(c);
  }
  if (size > size_peak_) size_peak_ = size;
  if (rss > rss_peak_) rss_peak_ = rss;
  ++samples_;
}

}  // namespace account
