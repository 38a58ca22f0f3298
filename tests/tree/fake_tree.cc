#include "fake_tree.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>

#include "fake_proc.h"

namespace account {

namespace {
constexpr uint64_t kPagesPerMiB = 256;
}

FakeTree::~FakeTree() {
  for (auto& [pid, p] : procs_)
    if (p.pidfd >= 0) ::close(p.pidfd);
}

FakeTree::Process* FakeTree::find(pid_t pid) {
  auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : &it->second;
}

FakeTree::Process& FakeTree::fork(pid_t parent, pid_t pid, uint64_t size_mib,
                                  uint64_t resident_mib) {
  Process& p = procs_[pid];
  p = Process{};
  p.start_ticks = 1000 + ++forks_;
  p.parent = parent;
  p.size_pages = size_mib * kPagesPerMiB;
  p.resident_pages = resident_mib * kPagesPerMiB;
  if (Process* up = find(parent)) up->children.push_back(pid);
  last_pid_ = uint64_t(pid);
  return p;
}

void FakeTree::resize(pid_t pid, uint64_t size_mib, uint64_t resident_mib) {
  Process* p = find(pid);
  p->size_pages = size_mib * kPagesPerMiB;
  p->resident_pages = resident_mib * kPagesPerMiB;
}

void FakeTree::end(pid_t pid, int wait_status) {
  Process* p = find(pid);
  p->zombie = true;
  p->wait_status = wait_status;
  if (p->pidfd >= 0) eventfd_write(p->pidfd, 1);
}

void FakeTree::reap(pid_t pid, pid_t new_parent) {
  Process* p = find(pid);
  if (Process* up = find(p->parent)) {
    auto& kids = up->children;
    kids.erase(std::remove(kids.begin(), kids.end(), pid), kids.end());
  }
  for (pid_t child : p->children) {
    find(child)->parent = new_parent;
    if (Process* adopter = find(new_parent)) adopter->children.push_back(child);
  }
  // A pidfd the sampler holds (a dup) stays readable, as a real one does.
  if (p->pidfd >= 0) ::close(p->pidfd);
  procs_.erase(pid);
}

bool FakeTree::open(ProcHandle* h) {
  h->statm_fd = h->stat_fd = h->status_fd = 1000;
  return find(h->pid) != nullptr;
}

void FakeTree::close(ProcHandle* h) {
  h->statm_fd = h->stat_fd = h->status_fd = -1;
}

bool FakeTree::statm(ProcHandle* h, MemoryNow* out) {
  ++statm_reads;
  Process* p = find(h->pid);
  if (!p) return false;
  std::string text = p->zombie ? kZombieStatm : statm_text(p->size_pages, p->resident_pages, 0);
  return parse_statm(text.c_str(), out);
}

bool FakeTree::stat(ProcHandle* h, CpuAndExit* out) {
  return stat(h->pid, out);
}

bool FakeTree::stat(pid_t pid, CpuAndExit* out) {
  Process* p = find(pid);
  if (!p) return false;
  std::string text = stat_text(p->zombie ? 'Z' : 'S', p->utime, 0, p->wait_status);
  text.replace(text.find("(my (prog))"), 11, "(" + p->comm + ")");
  // Field 4, the parent: the 2nd after the one that closes the name.
  size_t ppid_at = text.find(' ', text.rfind(')') + 2) + 1;
  text.replace(ppid_at, text.find(' ', ppid_at) - ppid_at, std::to_string(p->parent));
  // Field 22, the start time: the 20th after the one that closes the name.
  size_t at = text.rfind(')') + 1;
  for (int field = 2; field < 22; ++field) at = text.find(' ', at) + 1;
  text.replace(at, text.find(' ', at) - at, std::to_string(p->start_ticks));
  return parse_stat(text.c_str(), out);
}

pid_t FakeTree::nested_pid(pid_t pid) {
  Process* p = find(pid);
  return p ? p->nested_pid : 0;
}

bool FakeTree::status(ProcHandle* h, MemoryPeaks* out) {
  Process* p = find(h->pid);
  if (!p) return false;
  uint64_t size_kb = p->size_pages * 4, rss_kb = p->resident_pages * 4;
  std::string text = p->zombie ? kZombieStatus : status_text(size_kb, size_kb, rss_kb, rss_kb);
  return parse_status_peaks(text.c_str(), out);
}

bool FakeTree::exit_status(ProcHandle*, int*) {
  return false;  // as before Linux 6.15: the zombie's stat says it
}

bool FakeTree::last_pid(int*, uint64_t* out) {
  *out = last_pid_;
  return true;
}

std::vector<pid_t> FakeTree::children(pid_t pid, ChildrenFile*, bool) {
  return all_children(pid);
}

std::vector<pid_t> FakeTree::all_children(pid_t pid) {
  ++children_reads;
  Process* p = find(pid);
  return p ? p->children : std::vector<pid_t>{};
}

int FakeTree::open_pidfd(pid_t pid) {
  Process* p = find(pid);
  if (!p) return -1;
  if (p->pidfd < 0) p->pidfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (p->zombie) eventfd_write(p->pidfd, 1);
  return dup(p->pidfd);  // the sampler closes its own
}

std::vector<pid_t> FakeTree::all_pids() {
  std::vector<pid_t> pids;
  for (auto& [pid, p] : procs_) pids.push_back(pid);
  return pids;
}

std::string FakeTree::exe(pid_t pid) {
  Process* p = find(pid);
  return p ? p->exe : std::string();
}

std::string FakeTree::cmdline(pid_t pid) {
  Process* p = find(pid);
  return p ? p->cmdline : std::string();
}

}  // namespace account
