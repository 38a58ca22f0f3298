// account watch on a process started without the shim.
#include <errno.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "records.h"
#include "run_program.h"
#include "shim_run.h"

namespace account::testing {
namespace {

TEST(Watch, RecordsASleepUntilItEnds) {
  TempDir dir;
  pid_t pid = fork();
  if (pid == 0) {
    execlp("sleep", "sleep", "0.4", nullptr);
    _exit(127);
  }
  // Watch the sleep, not the forked copy of this test before its exec.
  for (int i = 0; i < 1000; ++i) {
    std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
    std::string first;
    std::getline(cmdline, first, '\0');
    if (first == "sleep") break;
    usleep(1000);
  }
  auto r = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", std::to_string(pid), "-o",
                        dir.file("w.jsonl"), "--interval", "5", "--test", "w", "--op", "sleep"});
  int status;
  waitpid(pid, &status, 0);
  EXPECT_EQ(r.status, 0) << r.err;
  RecordFile f = read_records(dir.file("w.jsonl"));
  ASSERT_TRUE(f.bad_lines.empty());
  ASSERT_EQ(f.processes.size(), 1u);
  const ProcessRecord& p = f.processes[0];
  EXPECT_EQ(p.pid, pid);
  EXPECT_EQ(p.argv, (std::vector<std::string>{"sleep", "0.4"}));
  EXPECT_EQ(p.written_by, "watch");
  EXPECT_EQ(p.test, "w");
  EXPECT_EQ(p.host, uname_n());
  // The zombie was held by this test, so how it ended is known.
  EXPECT_EQ(p.end, "exit");
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_GE(p.samples, 20u);  // ~80 expected over 0.4 s at 5 ms
  EXPECT_GT(p.rss_peak_bytes, 0u);
  EXPECT_GE(p.vm_peak_bytes, p.sampled_size_peak_bytes);
}

TEST(Watch, InterruptWritesTheRecordOfARunningProcess) {
  TempDir dir;
  pid_t target = fork();
  if (target == 0) {
    execlp("sleep", "sleep", "30", nullptr);
    _exit(127);
  }
  pid_t watcher = fork();
  if (watcher == 0) {
    execl(ACCOUNT_CLI_PATH, "account", "watch", "--pid", std::to_string(target).c_str(), "-o",
          dir.file("w.jsonl").c_str(), nullptr);
    _exit(127);
  }
  usleep(300 * 1000);
  kill(watcher, SIGINT);  // Ctrl-C
  int status;
  waitpid(watcher, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(kill(target, 0), 0) << "watch must not touch the watched process";
  kill(target, SIGKILL);
  waitpid(target, &status, 0);
  RecordFile f = read_records(dir.file("w.jsonl"));
  ASSERT_EQ(f.processes.size(), 1u);
  EXPECT_EQ(f.processes[0].end, "running");
  EXPECT_EQ(f.processes[0].pid, target);
  EXPECT_GE(f.processes[0].samples, 10u);  // ~60 expected in 300 ms at 5 ms
}

// The end of one death as the shim's own sampler and account watch record it.
struct TwoViews {
  ProcessRecord shim, watch;
};

// Runs `die SIGNAL 300` under the shim (standalone: its per-image sampler
// writes the record of a killed image) and `account watch` on the same pid.
// With `hold_zombie` this test reaps the target only after the watch has
// ended; without, it reaps at once, so either sampler may find it gone.
TwoViews watch_and_shim_see(const TempDir& dir, int signal, bool hold_zombie) {
  std::string shim_out = dir.file("shim.jsonl"), watch_out = dir.file("w.jsonl");
  std::string die = std::string(TREE_PROGRAMS_DIR) + "/die";
  pid_t target = fork();
  if (target == 0) {
    setenv("LD_PRELOAD", ACCOUNT_SHIM_PATH, 1);
    setenv("ACCOUNT_OUTPUT", shim_out.c_str(), 1);
    unsetenv("ACCOUNT_RUN_DIR");
    execl(die.c_str(), "die", std::to_string(signal).c_str(), "300", nullptr);
    _exit(127);
  }
  for (int i = 0; i < 1000; ++i) {  // watch the image after the exec
    std::ifstream cmdline("/proc/" + std::to_string(target) + "/cmdline");
    std::string first;
    std::getline(cmdline, first, '\0');
    if (first == "die") break;
    usleep(1000);
  }
  pid_t watcher = fork();
  if (watcher == 0) {
    execl(ACCOUNT_CLI_PATH, "account", "watch", "--pid", std::to_string(target).c_str(), "-o",
          watch_out.c_str(), "--interval", "5", nullptr);
    _exit(127);
  }
  int status;
  if (hold_zombie) {
    waitpid(watcher, &status, 0);
    waitpid(target, &status, 0);
  } else {
    waitpid(target, &status, 0);
    waitpid(watcher, &status, 0);
  }
  EXPECT_TRUE(WIFSIGNALED(status) || WIFEXITED(status));
  RecordFile shim, watch = read_records(watch_out);
  for (int i = 0; i < 500 && shim.processes.empty(); ++i) {  // the sampler writes after the death
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    shim = read_records(shim_out);
  }
  TwoViews views;
  EXPECT_EQ(shim.processes.size(), 1u) << slurp(shim_out);
  EXPECT_EQ(watch.processes.size(), 1u) << slurp(watch_out);
  if (!shim.processes.empty()) views.shim = shim.processes[0];
  if (!watch.processes.empty()) views.watch = watch.processes[0];
  return views;
}

void expect_same_ending(int signal, bool hold_zombie) {
  TempDir dir;
  TwoViews v = watch_and_shim_see(dir, signal, hold_zombie);
  SCOPED_TRACE(
      fmt::format("signal {}, zombie {}", signal, hold_zombie ? "held" : "reaped at once"));
  EXPECT_EQ(v.shim.written_by, "sampler");
  EXPECT_EQ(v.watch.written_by, "watch");
  EXPECT_EQ(v.shim.pid, v.watch.pid);
  EXPECT_EQ(v.shim.end, v.watch.end);
  EXPECT_EQ(v.shim.signal, v.watch.signal);
  EXPECT_EQ(v.shim.exit_code, v.watch.exit_code);
  // Held, the zombie tells both exactly how it died.
  if (hold_zombie) {
    EXPECT_EQ(v.watch.end, signal == 9 ? "killed" : "signal");
    EXPECT_EQ(v.watch.signal, signal);
  }
}

TEST(Watch, ClassifiesASigkillAsTheShimDoes) {
  expect_same_ending(9, true);
  expect_same_ending(9, false);
}

TEST(Watch, ClassifiesASegfaultAsTheShimDoes) {
  expect_same_ending(11, true);
  expect_same_ending(11, false);
}

// A pid the kernel could hand out but that names no process now.
pid_t free_pid() {
  for (pid_t pid = 4194303; pid > 300; --pid)
    if (kill(pid, 0) != 0 && errno == ESRCH) return pid;
  return 0;
}

TEST(Watch, MissingProcessIsOneClearLine) {
  pid_t pid = free_pid();
  ASSERT_NE(pid, 0);
  auto r = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", std::to_string(pid)});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind(fmt::format("account: watch: no process {}", pid), 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(Watch, PidBeyondTheKernelsRangeIsAUsageError) {
  auto r = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", "999999999"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "account: watch: --pid 999999999 is not 1-4194304\n");
}

}  // namespace
}  // namespace account::testing
