// A signal to account run (SIGINT, SIGTERM, SIGHUP) is passed on to its
// command's tree: the --repeat loop stops, nothing of the tree outlives
// account run, the tree record says "interrupted", the status is 128+signal
// and no temporary file is left (issue 20). The signal goes to account run's
// pid only, as kill(1) or a service manager would send it, never to a group.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "records.h"
#include "run_program.h"

namespace account::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// account run started in the background, its stderr in a file. It starts with
// default dispositions for every signal (a test runner may ignore some).
struct Background {
  pid_t pid = -1;
  std::string err_path;
};

Background start(const std::vector<std::string>& args, const std::string& tmpdir,
                 const std::string& err_path) {
  std::vector<std::string> argv_copy = {ACCOUNT_CLI_PATH, "run"};
  argv_copy.insert(argv_copy.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string tmp = "TMPDIR=" + tmpdir;
  pid_t pid = fork();
  if (pid == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    putenv(tmp.data());
    int fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0), dup2(null, 1);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return {pid, err_path};
}

// The exit status (128+signal for a signal), or -1 if it has not ended in time.
int wait_for(pid_t pid, double seconds) {
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < deadline) {
    int status;
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

std::vector<pid_t> children(pid_t pid) {
  std::vector<pid_t> out;
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  for (pid_t c; in >> c;) out.push_back(c);
  return out;
}

std::string comm(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

// Waits until account run's child runs `name` (its exec done), up to 20 s.
pid_t wait_for_child(pid_t parent, const std::string& name) {
  for (auto deadline = Clock::now() + std::chrono::seconds(20); Clock::now() < deadline;) {
    for (pid_t c : children(parent))
      if (comm(c) == name) return c;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

// The run's image directory in /dev/shm (or TMPDIR): the account-run-* one
// holding an image file of `pid` ("<pid>-<ppid>-<start>").
std::string image_dir_of(pid_t pid, const std::string& tmpdir) {
  std::string prefix = std::to_string(pid) + "-";
  for (auto deadline = Clock::now() + std::chrono::seconds(20); Clock::now() < deadline;) {
    for (const std::string& base : {std::string("/dev/shm"), tmpdir}) {
      std::error_code ec;
      for (const fs::directory_entry& d : fs::directory_iterator(base, ec)) {
        if (d.path().filename().string().rfind("account-run-", 0) != 0 || !d.is_directory(ec))
          continue;
        for (const fs::directory_entry& f : fs::directory_iterator(d.path(), ec))
          if (f.path().filename().string().rfind(prefix, 0) == 0) return d.path().string();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "";
}

bool alive(pid_t pid) {
  return kill(pid, 0) == 0 || errno != ESRCH;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct SignalCase {
  int sig;
  bool temporary_output;  // no -o: the records go to a temporary file in TMPDIR
};

class RunSignal : public ::testing::TestWithParam<SignalCase> {};

TEST_P(RunSignal, StopsTheRepeatAndTheTreeAndCleansUp) {
  const SignalCase& c = GetParam();
  TempDir dir;
  std::string tmpdir = dir.file("tmp"), path = dir.file("r.jsonl");
  fs::create_directory(tmpdir);
  std::vector<std::string> args = {"--repeat", "5"};
  if (!c.temporary_output) args.insert(args.end(), {"-o", path});
  args.insert(args.end(), {"--", "/bin/sleep", "5"});
  Background run = start(args, tmpdir, dir.file("err"));
  pid_t sleep_pid = wait_for_child(run.pid, "sleep");
  ASSERT_GT(sleep_pid, 0);
  std::string image_dir = image_dir_of(sleep_pid, tmpdir);
  EXPECT_FALSE(image_dir.empty());
  ASSERT_EQ(kill(run.pid, c.sig), 0);
  // One repetition is 5 s: the loop going on would take 20 s more. The sleep
  // dies at once from the signal passed on; 15 s is slack for a loaded machine.
  int status = wait_for(run.pid, 15);
  EXPECT_EQ(status, 128 + c.sig) << read_file(run.err_path);
  EXPECT_FALSE(alive(sleep_pid));
  EXPECT_TRUE(children(run.pid).empty());
  EXPECT_TRUE(fs::is_empty(tmpdir)) << fs::directory_iterator(tmpdir)->path();
  if (!image_dir.empty()) {
    EXPECT_FALSE(fs::exists(image_dir)) << image_dir;
  }
  std::string err = read_file(run.err_path);
  EXPECT_NE(err.find(std::string(" (interrupted: SIG") + sigabbrev_np(c.sig) + ")"),
            std::string::npos)
      << err;
  if (c.temporary_output) return;
  RecordFile f = read_records(path);
  EXPECT_TRUE(f.bad_lines.empty());
  ASSERT_EQ(f.trees.size(), 1u);  // the loop stopped after the first repetition
  const TreeRecord& t = f.trees[0];
  EXPECT_EQ(t.run, 1u);
  ASSERT_TRUE(t.interrupted.has_value());
  EXPECT_EQ(*t.interrupted, c.sig);
  ASSERT_EQ(f.processes.size(), 1u);
  EXPECT_EQ(f.processes[0].pid, sleep_pid);
  EXPECT_EQ(f.processes[0].end, "signal");
  EXPECT_EQ(f.processes[0].signal, c.sig);
}

INSTANTIATE_TEST_SUITE_P(Signals, RunSignal,
                         ::testing::Values(SignalCase{SIGINT, false}, SignalCase{SIGTERM, false},
                                           SignalCase{SIGINT, true}, SignalCase{SIGTERM, true},
                                           SignalCase{SIGHUP, false}),
                         [](const ::testing::TestParamInfo<SignalCase>& info) {
                           return std::string("SIG") + sigabbrev_np(info.param.sig) +
                                  (info.param.temporary_output ? "_TemporaryOutput" : "_Output");
                         });

// A command that ignores SIGTERM (and its child, which inherits that) is
// SIGKILLed --kill-after seconds after the signal.
TEST(RunSignalKillAfter, ATreeThatIgnoresTheSignalIsKilled) {
  TempDir dir;
  std::string tmpdir = dir.file("tmp"), path = dir.file("r.jsonl");
  fs::create_directory(tmpdir);
  Background run = start({"-o", path, "--kill-after", "1", "--", "/bin/sh", "-c",
                          "trap '' TERM; /bin/sleep 30; echo after"},
                         tmpdir, dir.file("err"));
  pid_t sh_pid = wait_for_child(run.pid, "sh");
  ASSERT_GT(sh_pid, 0);
  pid_t sleep_pid = wait_for_child(sh_pid, "sleep");
  ASSERT_GT(sleep_pid, 0);
  auto sent = Clock::now();
  ASSERT_EQ(kill(run.pid, SIGTERM), 0);
  // Not before --kill-after (1 s), and long before the 30 s sleep would end
  // (20 s: slack for a loaded machine).
  int status = wait_for(run.pid, 20);
  double took = std::chrono::duration<double>(Clock::now() - sent).count();
  EXPECT_EQ(status, 128 + SIGTERM) << read_file(run.err_path);
  EXPECT_GE(took, 1.0);
  EXPECT_FALSE(alive(sh_pid));
  EXPECT_FALSE(alive(sleep_pid));
  EXPECT_TRUE(fs::is_empty(tmpdir));
  RecordFile f = read_records(path);
  EXPECT_TRUE(f.bad_lines.empty());
  ASSERT_EQ(f.trees.size(), 1u);
  ASSERT_TRUE(f.trees[0].interrupted.has_value());
  EXPECT_EQ(*f.trees[0].interrupted, SIGTERM);
  ASSERT_TRUE(f.trees[0].signal.has_value());
  EXPECT_EQ(*f.trees[0].signal, SIGKILL);  // the command died of the kill, not of the TERM
  ASSERT_EQ(records_of(f, "sleep").size(), 1u);
  EXPECT_EQ(records_of(f, "sleep")[0].signal, SIGKILL);
}

// A signal during --prepare stops the run before the command starts.
TEST(RunSignalPrepare, ASignalDuringPrepareStopsTheRun) {
  TempDir dir;
  std::string tmpdir = dir.file("tmp"), path = dir.file("r.jsonl"), marker = dir.file("started");
  fs::create_directory(tmpdir);
  Background run = start({"-o", path, "--repeat", "3", "--prepare", "exec /bin/sleep 5", "--",
                          "/usr/bin/touch", marker},
                         tmpdir, dir.file("err"));
  pid_t sleep_pid = wait_for_child(run.pid, "sleep");
  ASSERT_GT(sleep_pid, 0);
  ASSERT_EQ(kill(run.pid, SIGINT), 0);
  EXPECT_EQ(wait_for(run.pid, 15), 128 + SIGINT) << read_file(run.err_path);
  EXPECT_FALSE(alive(sleep_pid));
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_TRUE(fs::is_empty(tmpdir));
  RecordFile f = read_records(path);
  EXPECT_TRUE(f.trees.empty());
  EXPECT_TRUE(f.processes.empty());
}

}  // namespace
}  // namespace account::testing
