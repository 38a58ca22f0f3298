#include "spawn_command.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"

extern char** environ;

namespace account {

namespace {

// The child's errors before its exec, for a parent that does not share its
// memory. If even this write fails, the parent has the exit status.
void report_failure(int fd, int exec_error, int join_error) {
  int failed[2] = {exec_error, join_error};
  if (fd >= 0) (void)!write(fd, failed, sizeof failed);
}

}  // namespace

Spawned spawn_command(const std::vector<std::string>& command, const ChildSignals& signals,
                      char* const* envp, bool die_with_parent, const std::vector<int>& join_fds,
                      bool join_required) {
  // Held in memory the child only reads (a register variable may be clobbered by vfork).
  char* const* volatile env = envp ? envp : environ;
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The child shares this memory until its exec (vfork): it writes its start
  // and, if the exec fails, its errno here. It calls only async-signal-safe
  // functions, and nothing that allocates.
  volatile uint64_t exec_ns = 0;
  volatile uint64_t exec_monotonic_ns = 0;
  volatile int exec_errno = 0;
  volatile int join_errno = 0;
  const int* join = join_fds.data();
  size_t n_join = join_fds.size();
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &saved);  // no handler of ours may run in the child
  const int* to_default = signals.to_default.data();
  size_t n_default = signals.to_default.size();
  // Where the child also reports a failure before its exec, for when vfork
  // makes a copy of this memory as a fork does (ThreadSanitizer's runtime,
  // preloaded, turns vfork into fork): closed by the exec, so the parent
  // reads the end of file then.
  int failure[2];
  if (pipe2(failure, O_CLOEXEC) != 0) failure[0] = failure[1] = -1;
  pid_t pid = vfork();
  if (pid == 0) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < n_default; ++i) sigaction(to_default[i], &dfl, nullptr);
    sigprocmask(SIG_SETMASK, &signals.mask, nullptr);
    // Dies with account run, also when it is SIGKILLed (which no handler
    // sees). No race: vfork holds the parent until the exec.
    if (die_with_parent) prctl(PR_SET_PDEATHSIG, SIGKILL);
    // "0" is the writing process itself, in cgroup v1 and v2.
    for (size_t i = 0; i < n_join; ++i)
      if (write(join[i], "0", 1) != 1 && join_errno == 0) join_errno = errno;
    if (join_errno != 0 && join_required) {
      exec_errno = join_errno;
      report_failure(failure[1], join_errno, join_errno);
      _exit(125);
    }
    exec_ns = realtime_ns();
    exec_monotonic_ns = monotonic_ns();
    execvpe(argv[0], argv.data(), env);
    exec_errno = errno;
    report_failure(failure[1], exec_errno, join_errno);
    _exit(127);
  }
  int fork_errno = errno;
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (failure[1] >= 0) close(failure[1]);
  Spawned s;
  s.join_error = join_errno;
  if (pid >= 0 && exec_ns == 0 && exec_errno == 0) {
    // The child wrote nothing here: vfork made a copy of this memory, as a
    // fork does, and this process runs on beside it. Its failure, if any,
    // comes through the pipe; else the command starts about now.
    int failed[2] = {0, 0};
    ssize_t n;
    do n = failure[0] >= 0 ? read(failure[0], failed, sizeof failed) : 0;
    while (n < 0 && errno == EINTR);
    if (n == ssize_t(sizeof failed)) {
      exec_errno = failed[0];
      s.join_error = failed[1];
    }
    exec_ns = realtime_ns();
    exec_monotonic_ns = monotonic_ns();
  }
  if (failure[0] >= 0) close(failure[0]);
  if (pid < 0) {
    s.error = fork_errno;
    return s;
  }
  if (exec_errno != 0) {  // the child has exited: reap it
    int status;
    waitpid(pid, &status, 0);
    s.error = exec_errno;
    return s;
  }
  s.pid = pid;
  s.exec_ns = exec_ns;
  s.exec_monotonic_ns = exec_monotonic_ns;
  return s;
}

}  // namespace account
