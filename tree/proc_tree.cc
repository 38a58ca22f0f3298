#include "proc_tree.h"

#include <sys/syscall.h>
#include <unistd.h>

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

bool ProcTree::running(pid_t pid) {
  CpuAndExit now;
  return stat(pid, &now) && now.state != 'Z';
}

namespace {
class SystemTree final : public ProcTree {};
}  // namespace

ProcTree& system_tree() {
  static SystemTree tree;
  return tree;
}

}  // namespace account
