#include "tree_stop.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <string>
#include <unordered_set>

#include "proc_files.h"
#include "proc_text.h"

namespace account {

namespace {

pid_t pid_of_name(const char* name) {
  pid_t pid = 0;
  for (const char* c = name; *c; ++c) {
    if (*c < '0' || *c > '9' || pid > 100000000) return 0;
    pid = pid * 10 + (*c - '0');
  }
  return pid;
}

bool held(char state) {  // stopped, or past forking
  return state == 'T' || state == 't' || state == 'Z' || state == 'X';
}

}  // namespace

size_t stop_and_kill(const std::vector<pid_t>& members, std::chrono::milliseconds within) {
  std::unordered_set<pid_t> tree;     // whose children are the tree's
  std::unordered_set<pid_t> stopped;  // those SIGSTOP reached (this user's)
  auto add = [&](pid_t pid) {
    if (pid <= 1 || pid == getpid() || !tree.insert(pid).second) return;
    if (kill(pid, SIGSTOP) == 0) stopped.insert(pid);
  };
  for (pid_t pid : members) add(pid);
  auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    bool grew = false, settled = true;
    DIR* proc = opendir("/proc");
    while (dirent* e = proc ? readdir(proc) : nullptr) {
      pid_t pid = pid_of_name(e->d_name);
      CpuAndExit stat;
      if (pid <= 0 ||
          !parse_stat(read_proc_text("/proc/" + std::to_string(pid) + "/stat").c_str(), &stat))
        continue;
      if (stopped.count(pid)) {
        settled = settled && held(stat.state);
      } else if (!tree.count(pid) && tree.count(stat.ppid)) {
        add(pid);
        grew = true;
      }
    }
    if (proc) closedir(proc);
    if ((!grew && settled) || std::chrono::steady_clock::now() >= deadline) break;
    usleep(1000);
  }
  size_t killed = 0;
  for (pid_t pid : tree) killed += kill(pid, SIGKILL) == 0;
  return killed;
}

}  // namespace account
