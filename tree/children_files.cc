#include "children_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "proc_files.h"
#include "proc_text.h"
#include "sampling.h"

namespace account {

// "123 456 " without a stream: this runs for every process at every tick.
void add_children_text(const char* text, std::vector<pid_t>* out) {
  pid_t child = 0;
  bool in_number = false;
  for (; *text; ++text) {
    char c = *text;
    if (c >= '0' && c <= '9') {
      child = child * 10 + (c - '0');
      in_number = true;
    } else if (in_number) {
      out->push_back(child);
      child = 0;
      in_number = false;
    }
  }
  if (in_number) out->push_back(child);
}

namespace {

void add_children(const std::string& children_file, std::vector<pid_t>* out) {
  add_children_text(read_proc_text(children_file).c_str(), out);
}

void add_children_from(int fd, std::vector<pid_t>* out) {
  char text[4096];
  ssize_t n = pread_text(fd, text, sizeof text);
  if (n < 0) return;
  if (size_t(n) + 1 >= sizeof text) {  // more children than fit: the long way
    add_children(std::string("/proc/self/fd/") + std::to_string(fd), out);
    return;
  }
  add_children_text(text, out);
}

}  // namespace

void ChildrenFile::close() {
  if (children_fd >= 0) ::close(children_fd);
  if (task_fd >= 0) ::close(task_fd);
  children_fd = task_fd = -1;
  reads = 0;
}

std::vector<pid_t> read_children(pid_t pid, ChildrenFile* file, bool may_keep_open) {
  if (file->task_fd < 0 && may_keep_open) {
    std::string task = "/proc/" + std::to_string(pid) + "/task";
    file->task_fd = open(task.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (file->task_fd >= 0)
      file->children_fd =
          openat(file->task_fd, (std::to_string(pid) + "/children").c_str(), O_RDONLY | O_CLOEXEC);
    if (file->children_fd < 0) file->close();
  }
  if (file->task_fd < 0) return children_of(pid);  // not kept
  // Every thread's children, and whether there are threads, are read every
  // kSlowEvery ticks; the main thread's every tick. A process the shim runs in
  // is found by its image file whichever thread forked it; one without the
  // shim forked by another thread joins the tree's sums at most kSlowEvery
  // ticks late. Every tick, a process of 40 threads cost 124 system calls.
  if (file->reads++ % kSlowEvery == 0) {
    struct stat st;
    if (fstat(file->task_fd, &st) != 0 || st.st_nlink != 3) return children_of(pid);
  }
  std::vector<pid_t> out;
  add_children_from(file->children_fd, &out);
  return out;
}

std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> out;
  std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
  // procfs counts a process's threads in its task directory's links (two
  // plus one a thread): one stat tells a single-threaded process, whose only
  // children file is its main thread's, from one whose threads must be listed.
  // (A leader that left by pthread_exit with one thread left is read as
  // single-threaded: that thread's children are found by their image files.)
  struct stat st;
  if (stat(task_dir.c_str(), &st) != 0) return out;
  if (st.st_nlink == 3) {
    add_children(task_dir + "/" + std::to_string(pid) + "/children", &out);
    return out;
  }
  DIR* dir = opendir(task_dir.c_str());
  if (!dir) return out;
  while (dirent* e = readdir(dir))
    if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
      add_children(task_dir + "/" + e->d_name + "/children", &out);
  closedir(dir);
  return out;
}

}  // namespace account
