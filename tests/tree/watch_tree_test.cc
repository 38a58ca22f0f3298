// account watch --tree: a running server and every process it forks.
#include <arpa/inet.h>
#include <dirent.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "records.h"
#include "run_program.h"
#include "shim_run.h"

namespace account::testing {
namespace {

pid_t spawn(const std::vector<std::string>& argv, int stdin_fd = -1) {
  pid_t pid = fork();
  if (pid == 0) {
    if (stdin_fd >= 0) dup2(stdin_fd, 0);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  return pid;
}

// The watch holds a pidfd once it has subscribed to the proc connector and
// walked the tree: from then on no fork of the tree escapes it.
bool watch_ready(pid_t watcher) {
  for (int i = 0; i < 2000; ++i) {
    std::string dir = "/proc/" + std::to_string(watcher) + "/fd";
    if (DIR* d = opendir(dir.c_str())) {
      bool found = false;
      while (dirent* e = readdir(d)) {
        char target[256] = {};
        if (readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1) > 0 &&
            std::string(target).find("pidfd") != std::string::npos)
          found = true;
      }
      closedir(d);
      if (found) return true;
    }
    usleep(5000);
  }
  return false;
}

pid_t start_watch(pid_t root, const std::string& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {ACCOUNT_CLI_PATH, "watch", "--pid", std::to_string(root),
                                   "--tree",         "-o",    out};
  argv.insert(argv.end(), extra.begin(), extra.end());
  pid_t watcher = spawn(argv);
  EXPECT_TRUE(watch_ready(watcher));
  return watcher;
}

int wait_status(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool argv_has(const ProcessRecord& p, const std::string& word) {
  return std::find(p.argv.begin(), p.argv.end(), word) != p.argv.end();
}

// The CPU account report adds up: an exec'd image's CPU is in the next image
// of the same pid (CPU goes on across exec), so only the last image counts.
double record_cpu(const RecordFile& f) {
  std::map<int64_t, double> last_of_pid;
  double sum = 0;
  for (const auto& p : f.processes) {
    if (p.end == "exec") {
      last_of_pid[p.pid] = p.cpu_user_s + p.cpu_sys_s;
    } else {
      last_of_pid.erase(p.pid);
      sum += p.cpu_user_s + p.cpu_sys_s;
    }
  }
  for (auto& [pid, cpu] : last_of_pid) sum += cpu;
  return sum;
}

int free_port() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  close(s);
  return ntohs(a.sin_port);
}

bool port_open(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(uint16_t(port));
  bool ok = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(s);
  return ok;
}

void must(const std::vector<std::string>& argv, const std::string& cwd = "") {
  ProgramOptions o;
  o.cwd = cwd;
  auto r = run_program(argv, o);
  ASSERT_EQ(r.status, 0) << argv[0] << " " << argv[1] << ": " << r.err;
}

TEST(WatchTree, GitDaemonEveryUploadPackAndPackObjects) {
  TempDir dir;
  std::string work = dir.file("work"), repos = dir.file("repos");
  must({"git", "init", "-q", work});
  // Some content, so that pack-objects has work to do.
  {
    ProgramOptions o;
    o.cwd = work;
    ASSERT_EQ(run_program({"sh", "-c",
                           "for i in $(seq 1 40); do head -c 20000 /dev/urandom | od -x > f$i; "
                           "done && git add . && git -c user.name=t -c user.email=t@t commit -qm "
                           "one"},
                          o)
                  .status,
              0);
  }
  must({"mkdir", "-p", repos});
  must({"git", "clone", "-q", "--bare", work, repos + "/r.git"});
  int port = free_port();
  pid_t daemon = spawn({"git", "daemon", "--reuseaddr", "--export-all", "--base-path=" + repos,
                        "--listen=127.0.0.1", "--port=" + std::to_string(port), repos});
  bool up = false;
  for (int i = 0; i < 400 && !(up = port_open(port)); ++i) usleep(10000);
  ASSERT_TRUE(up);
  std::string out = dir.file("t.jsonl");
  pid_t watcher = start_watch(daemon, out, {"--test", "git", "--op", "serve", "--interval", "5"});
  std::string url = fmt::format("git://127.0.0.1:{}/r.git", port);
  for (int i = 0; i < 20; ++i) must({"git", "ls-remote", url});
  for (int i = 0; i < 5; ++i) must({"git", "clone", "-q", url, dir.file("c" + std::to_string(i))});
  usleep(300 * 1000);  // the last connection's processes end
  kill(watcher, SIGINT);
  EXPECT_EQ(wait_status(watcher), 0);
  kill(daemon, SIGTERM);
  wait_status(daemon);

  RecordFile f = read_records(out);
  ASSERT_TRUE(f.bad_lines.empty()) << f.bad_lines[0];
  ASSERT_EQ(f.trees.size(), 1u);
  const TreeRecord& t = f.trees[0];
  EXPECT_EQ(t.unseen_source, "proc_connector");  // the tests run as root
  int upload_pack = 0, pack_objects = 0;
  uint64_t largest_size = 0, largest_rss = 0;
  for (const auto& p : f.processes) {
    EXPECT_EQ(p.written_by, "watch");
    EXPECT_EQ(p.test, "git");
    if (p.end != "exec" && argv_has(p, "upload-pack")) ++upload_pack;
    if (p.end != "exec" && argv_has(p, "pack-objects")) ++pack_objects;
    largest_size = std::max(largest_size, p.sampled_size_peak_bytes);
    largest_rss = std::max(largest_rss, p.sampled_rss_peak_bytes);
  }
  // One upload-pack per request, one pack-objects per clone.
  EXPECT_EQ(upload_pack, 25);
  EXPECT_EQ(pack_objects, 5);
  // Every sample of a process is part of one sample of the tree's sum.
  EXPECT_GE(t.sampled_size_peak_bytes, largest_size);
  EXPECT_GE(t.sampled_rss_peak_bytes, largest_rss);
  // The daemon itself was still running.
  auto root = std::find_if(f.processes.begin(), f.processes.end(),
                           [&](const ProcessRecord& p) { return p.pid == daemon; });
  ASSERT_NE(root, f.processes.end());
  EXPECT_EQ(root->end, "running");

  // account report makes one row of it whose CPU is the records' plus the
  // unseen. Every figure comes from /proc in clock ticks and is printed to the
  // microsecond, so the sum matches up to that rounding: 1 us per record.
  auto r = run_program({ACCOUNT_CLI_PATH, "report", "--format", "csv", out});
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::string header, row, extra;
  std::getline(lines, header);
  std::getline(lines, row);
  EXPECT_FALSE(std::getline(lines, extra) && !extra.empty()) << r.out;
  ASSERT_EQ(row.rfind("git,serve,", 0), 0u) << r.out;
  double report_cpu = std::stod(row.substr(10));
  double expected = record_cpu(f) + t.unseen_cpu_s;
  EXPECT_NEAR(report_cpu, expected, 1e-6 * double(f.processes.size() + 2)) << r.out;
}

TEST(WatchTree, AThousandOneMillisecondChildrenAreAllCounted) {
  TempDir dir;
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  pid_t root = spawn({std::string(TREE_PROGRAMS_DIR) + "/fork_many", "1000"}, go[0]);
  close(go[0]);
  std::string out = dir.file("f.jsonl");
  pid_t watcher = start_watch(root, out, {"--interval", "5"});
  ASSERT_EQ(write(go[1], "g", 1), 1);
  close(go[1]);
  // The watch ends with the tree (the program is reaped by this test after).
  EXPECT_EQ(wait_status(watcher), 0);
  EXPECT_EQ(wait_status(root), 0);
  RecordFile f = read_records(out);
  ASSERT_TRUE(f.bad_lines.empty());
  ASSERT_EQ(f.trees.size(), 1u);
  const TreeRecord& t = f.trees[0];
  std::string host = uname_n();
  EXPECT_EQ(t.host, host);
  std::set<int64_t> children;
  for (const auto& p : f.processes) EXPECT_EQ(p.host, host) << p.pid;
  for (const auto& p : f.processes)
    if (p.pid != root) {
      EXPECT_EQ(p.ppid, root);
      children.insert(p.pid);
    }
  ASSERT_EQ(t.unseen_source, "proc_connector");
  EXPECT_EQ(children.size() + t.unseen_processes, 1000u)
      << children.size() << " recorded, " << t.unseen_processes << " unseen";
  EXPECT_EQ(t.processes, children.size() + 1);
  // Each child spins ~1 ms: 1000 of them at least ~1 s of CPU in all, which
  // the records and unseen_cpu_s share (stat counts in 10 ms ticks, so allow
  // a wide margin below: a child can be charged 0 ticks).
  double cpu = record_cpu(f) + t.unseen_cpu_s;
  EXPECT_GT(cpu, 0.3);
  EXPECT_LT(cpu, 30.0);
}

TEST(WatchTree, CtrlCRecordsEveryLiveProcessAsRunning) {
  TempDir dir;
  pid_t root = spawn({"sh", "-c", "sleep 30 & sleep 30 & wait"});
  std::string out = dir.file("i.jsonl");
  pid_t watcher = start_watch(root, out);
  usleep(400 * 1000);
  kill(watcher, SIGINT);
  EXPECT_EQ(wait_status(watcher), 0);
  EXPECT_EQ(kill(root, 0), 0) << "the watch must not touch the tree";
  RecordFile f = read_records(out);
  ASSERT_TRUE(f.bad_lines.empty());
  ASSERT_EQ(f.trees.size(), 1u);
  std::map<int64_t, std::string> last_end;
  int sleeps = 0;
  for (const auto& p : f.processes) {
    last_end[p.pid] = p.end;
    if (p.end == "running" && !p.argv.empty() && p.argv[0] == "sleep") ++sleeps;
  }
  EXPECT_EQ(last_end.size(), 3u);  // sh and its two sleeps
  for (auto& [pid, end] : last_end) EXPECT_EQ(end, "running") << pid;
  EXPECT_EQ(sleeps, 2);
  EXPECT_EQ(f.trees[0].processes, 3u);
  EXPECT_FALSE(f.trees[0].exit_code.has_value());
  for (const auto& [pid, end] : last_end) kill(pid_t(pid), SIGKILL);
  wait_status(root);
}

// sh starts a background sleep and exits at once; the sleep lives on.
struct Orphaning {
  TempDir dir;
  pid_t root = 0;
  Orphaning() { root = spawn({"sh", "-c", "sleep 2.5 & sleep 1; exit 7"}); }
};

TEST(WatchTree, ByDefaultTheWatchEndsWithTheLastProcess) {
  Orphaning o;
  std::string out = o.dir.file("d.jsonl");
  pid_t watcher = start_watch(o.root, out);
  EXPECT_EQ(wait_status(o.root), 7);
  auto root_end = std::chrono::steady_clock::now();
  EXPECT_EQ(wait_status(watcher), 0);
  double after = std::chrono::duration<double>(std::chrono::steady_clock::now() - root_end).count();
  EXPECT_GT(after, 0.8);  // the sleep had ~1.5 s to go
  RecordFile f = read_records(out);
  ASSERT_EQ(f.trees.size(), 1u);
  auto sleeps = records_of(f, "sleep");
  ASSERT_GE(sleeps.size(), 2u);
  bool long_sleep = false;
  for (const auto& p : sleeps) {
    EXPECT_NE(p.end, "running");
    long_sleep |=
        p.argv == std::vector<std::string>{"sleep", "2.5"} && p.end == "exit" && p.exit_code == 0;
  }
  EXPECT_TRUE(long_sleep);
  // The tree ended with the sleep, after the root (sh) ended.
  const TreeRecord& t = f.trees[0];
  EXPECT_EQ(t.exit_code, 7);
  EXPECT_GT(t.tree_end_ns, t.start_ns);
  EXPECT_LE(t.tree_end_ns, t.end_ns);
}

TEST(WatchTree, RootOnlyEndStopsWhenTheRootEnds) {
  Orphaning o;
  std::string out = o.dir.file("r.jsonl");
  pid_t watcher = start_watch(o.root, out, {"--root-only-end"});
  EXPECT_EQ(wait_status(o.root), 7);
  auto root_end = std::chrono::steady_clock::now();
  EXPECT_EQ(wait_status(watcher), 0);
  double after = std::chrono::duration<double>(std::chrono::steady_clock::now() - root_end).count();
  EXPECT_LT(after, 1.0);  // ~one interval; the sleep still had ~1.5 s to go
  RecordFile f = read_records(out);
  ASSERT_EQ(f.trees.size(), 1u);
  bool running_sleep = false;
  for (const auto& p : records_of(f, "sleep"))
    running_sleep |= p.argv == std::vector<std::string>{"sleep", "2.5"} && p.end == "running";
  EXPECT_TRUE(running_sleep);
  EXPECT_EQ(f.trees[0].exit_code, 7);
}

}  // namespace
}  // namespace account::testing
