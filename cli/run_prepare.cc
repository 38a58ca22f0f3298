#include "run_prepare.h"

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "shim_preload.h"
#include "spawn_command.h"

extern char** environ;

namespace account {

std::vector<std::string> unaccounted_environment(const std::string& shim) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("ACCOUNT_", 0) == 0) continue;
    if (kv.rfind("LD_PRELOAD=", 0) == 0) {
      std::string kept = preload_without_shim(shim, kv.c_str() + 11);
      if (kept.empty()) continue;
      kv = "LD_PRELOAD=" + kept;
    }
    env.push_back(kv);
  }
  return env;
}

PrepareResult run_prepare(const std::string& command, const std::vector<std::string>& env,
                          RunSignals& signals, double kill_after_s) {
  std::vector<std::string> env_copy = env;
  std::vector<char*> envp;
  for (std::string& kv : env_copy) envp.push_back(kv.data());
  envp.push_back(nullptr);
  PrepareResult result;
  Spawned sh = spawn_command({"/bin/sh", "-c", command}, signals.child(), envp.data());
  if (sh.pid < 0) {
    result.status = 127 << 8;
    return result;
  }
  int pidfd = int(syscall(SYS_pidfd_open, sh.pid, 0));
  auto kill_at = std::chrono::steady_clock::time_point::max();
  for (;;) {
    pollfd fds[2] = {{signals.fd(), POLLIN, 0}, {pidfd, POLLIN, 0}};
    // Without a pidfd (an old kernel), or once interrupted: look every 10 ms.
    poll(fds, pidfd >= 0 ? 2 : 1, pidfd >= 0 && !result.interrupted ? -1 : 10);
    while (int sig = signals.take()) {
      if (!result.interrupted) {
        result.interrupted = sig;
        kill_at = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                      std::chrono::duration<double>(kill_after_s));
      }
      kill(sh.pid, sig);
    }
    if (std::chrono::steady_clock::now() >= kill_at) kill(sh.pid, SIGKILL);
    pid_t done;
    do done = waitpid(sh.pid, &result.status, WNOHANG);
    while (done < 0 && errno == EINTR);
    if (done == sh.pid || done < 0) break;
  }
  if (pidfd >= 0) close(pidfd);
  return result;
}

}  // namespace account
