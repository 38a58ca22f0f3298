#include "run_signals.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace account {

namespace {
constexpr int kCaught[] = {SIGINT, SIGTERM, SIGHUP};

bool ignored(int sig) {
  struct sigaction old {};
  return sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN;
}
}  // namespace

RunSignals::RunSignals() {
  sigemptyset(&caught_);
  for (int sig : kCaught)
    if (!ignored(sig)) sigaddset(&caught_, sig);
  sigprocmask(SIG_BLOCK, &caught_, &child_.mask);
  fd_ = signalfd(-1, &caught_, SFD_CLOEXEC | SFD_NONBLOCK);
  quit_ignored_ = ignored(SIGQUIT);
  if (!quit_ignored_) {
    signal(SIGQUIT, SIG_IGN);
    child_.to_default.push_back(SIGQUIT);
  }
}

RunSignals::~RunSignals() {
  // The mask stays: a signal still pending would end account run before it
  // returns its status.
  if (fd_ >= 0) close(fd_);
}

void RunSignals::restore() const {
  if (!quit_ignored_) signal(SIGQUIT, SIG_DFL);
  sigprocmask(SIG_SETMASK, &child_.mask, nullptr);
}

int RunSignals::take() {
  if (fd_ < 0) return 0;
  signalfd_siginfo info;
  ssize_t n;
  do n = read(fd_, &info, sizeof info);
  while (n < 0 && errno == EINTR);
  return n == ssize_t(sizeof info) ? int(info.ssi_signo) : 0;
}

void forward_signal(int sig, pid_t command, const std::vector<pid_t>& tree) {
  std::vector<pid_t> pids = tree;
  pids.push_back(command);
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  for (pid_t pid : pids)
    if (pid > 0) kill(pid, sig);
}

}  // namespace account
