// account watch on a process started without the shim.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "records.h"
#include "run_program.h"

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

TEST(Watch, MissingProcessIsOneClearLine) {
  auto r = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", "999999999"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("account: watch: no process 999999999", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

}  // namespace
}  // namespace account::testing
