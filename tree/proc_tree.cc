#include "proc_tree.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "proc_text.h"

namespace account {

std::vector<pid_t> ProcTree::children(pid_t pid, ChildrenFile* file, bool may_keep_open) {
  return read_children(pid, file, may_keep_open);
}

std::vector<pid_t> ProcTree::all_children(pid_t pid) {
  return children_of(pid);
}

int ProcTree::open_pidfd(pid_t pid) {
  return int(syscall(SYS_pidfd_open, pid, 0));
}

bool ProcTree::stat(pid_t pid, CpuAndExit* out) {
  std::string text = read_proc_text("/proc/" + std::to_string(pid) + "/stat");
  return parse_stat(text.c_str(), out);
}

pid_t ProcTree::nested_pid(pid_t pid) {
  std::string text = read_proc_text("/proc/" + std::to_string(pid) + "/status");
  return parse_status_nested_pid(text.c_str());
}

bool ProcTree::running(pid_t pid) {
  CpuAndExit now;
  return stat(pid, &now) && now.state != 'Z';
}

std::vector<pid_t> ProcTree::all_pids() {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  while (dirent* e = proc ? readdir(proc) : nullptr) {
    char* end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == 0 && pid > 0) pids.push_back(pid_t(pid));
  }
  if (proc) closedir(proc);
  return pids;
}

std::string ProcTree::exe(pid_t pid) {
  char path[4096];
  ssize_t n = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), path, sizeof path);
  return n > 0 ? std::string(path, size_t(n)) : std::string();
}

std::string ProcTree::cmdline(pid_t pid) {
  return read_proc_text("/proc/" + std::to_string(pid) + "/cmdline");
}

namespace {
class SystemTree final : public ProcTree {};
}  // namespace

ProcTree& system_tree() {
  static SystemTree tree;
  return tree;
}

}  // namespace account
