// account watch --textfile DIR and --push URL (issue 15 part 2, issue 18
// item 4): the metrics file read while a real process is watched and after,
// checked with promtool and against `account export --format openmetrics` of
// the watch's records; pushes read back from a real Pushgateway.
#include "watch_metrics.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "output_file.h"
#include "pushgateway.h"
#include "records.h"
#include "run_program.h"

namespace account::testing {
namespace {

constexpr double kMiB = 1048576.0;

std::string read_whole(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = d ? readdir(d) : nullptr)
    if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
  if (d) closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

// Starts `argv` and returns once it runs argv[0]'s program (not the forked copy of this test).
pid_t start(const std::vector<std::string>& argv) {
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  std::string base = argv[0].substr(argv[0].rfind('/') + 1);
  for (int i = 0; i < 2000; ++i) {
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name == base.substr(0, 15)) break;
    usleep(1000);
  }
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// Waits up to `seconds` for `path` to exist.
bool appears(const std::string& path, double seconds) {
  for (int i = 0; i < seconds * 100; ++i) {
    if (exists(path)) return true;
    usleep(10000);
  }
  return false;
}

// The samples of OpenMetrics/Prometheus text: "name{labels}" -> value.
std::map<std::string, double> samples_of(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

std::string hostname() {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return host;
}

std::string export_openmetrics(const std::string& records) {
  auto r = run_program({ACCOUNT_CLI_PATH, "export", "--format", "openmetrics", records});
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

// promtool's verdict on a metrics text: "" when it passes.
std::string promtool_check(const std::string& text) {
  ProgramOptions o;
  o.stdin_text = text;
  auto r = run_program({"promtool", "check", "metrics"}, o);
  return r.status == 0 ? "" : r.out + r.err;
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// GET http://127.0.0.1:port/path; the body, or "" when nothing answers.
std::string http_get(int port, const std::string& path) {
  namespace beast = boost::beast;
  boost::asio::io_context io;
  beast::tcp_stream stream(io);
  beast::error_code ec;
  stream.connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"),
                                                static_cast<unsigned short>(port)),
                 ec);
  if (ec) return "";
  beast::http::request<beast::http::empty_body> req{beast::http::verb::get, path, 11};
  req.set(beast::http::field::host, "127.0.0.1");
  beast::http::write(stream, req, ec);
  beast::flat_buffer buffer;
  beast::http::response<beast::http::string_body> res;
  beast::http::read(stream, buffer, res, ec);
  return ec ? "" : res.body();
}

// Debian's prometheus-pushgateway on 127.0.0.1 (metrics in memory only),
// stopped with the object.
class Pushgateway {
 public:
  Pushgateway() : port_(free_port()) {
    pid_ = fork();
    if (pid_ == 0) {
      std::string listen = fmt::format("--web.listen-address=127.0.0.1:{}", port_);
      // Debian's default persists to /var/lib/prometheus: empty keeps it in memory.
      execlp("prometheus-pushgateway", "prometheus-pushgateway", listen.c_str(),
             "--persistence.file=", "--log.level=error", nullptr);
      _exit(127);
    }
    for (int i = 0; i < 1000 && http_get(port_, "/-/ready").empty(); ++i) usleep(10000);
  }
  ~Pushgateway() {
    kill(pid_, SIGTERM);
    wait_for(pid_);
  }
  int port() const { return port_; }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", port_); }

 private:
  int port_;
  pid_t pid_;
};

// --- units -------------------------------------------------------------------

TEST(WatchMetrics, PushUrls) {
  std::string error;
  auto t = parse_push_url("http://127.0.0.1:9091", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->host, "127.0.0.1");
  EXPECT_EQ(t->port, "9091");
  EXPECT_EQ(push_group_path(*t, "build7", 42), "/metrics/job/account/instance/build7/pid/42");
  t = parse_push_url("http://gw.example/prefix/", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->port, "80");
  EXPECT_EQ(push_group_path(*t, "h", 1), "/prefix/metrics/job/account/instance/h/pid/1");
  t = parse_push_url("http://[::1]:9091", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->host, "::1");
  EXPECT_EQ(t->port, "9091");
  t = parse_push_url("http://[::1]/", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(t->port, "80");
  EXPECT_EQ(t->prefix, "");
  EXPECT_FALSE(parse_push_url("http://[::1]x", &error));
  EXPECT_FALSE(parse_push_url("https://gw:9091", &error));
  EXPECT_EQ(error, "https:// is not supported: the Pushgateway must be reached over plain http://");
  EXPECT_FALSE(parse_push_url("gw:9091", &error));
  EXPECT_FALSE(parse_push_url("http://:9091", &error));
  EXPECT_FALSE(parse_push_url("http://gw:0", &error));
  EXPECT_EQ(error, "port '0' is not 1-65535");
  EXPECT_FALSE(parse_push_url("http://gw:65536", &error));
  EXPECT_FALSE(parse_push_url("http://gw:", &error));
}

// Issue 34.6: a CR or LF would reach the request line (header injection); a
// space would split it; the message names the byte without echoing it.
TEST(WatchMetrics, PushUrlsWithControlSpaceOrNonAsciiBytesAreRefused) {
  std::string error;
  EXPECT_FALSE(parse_push_url("http://gw:9091/x\r\nX-Injected: 1", &error));
  EXPECT_EQ(error, "byte 17 is a control character, a space or not ASCII (0x0d)");
  EXPECT_FALSE(parse_push_url("http://gw:9091/a b", &error));
  EXPECT_EQ(error, "byte 17 is a control character, a space or not ASCII (0x20)");
  EXPECT_FALSE(parse_push_url("http://g\xc3\xa9:9091", &error));
  EXPECT_EQ(error, "byte 9 is a control character, a space or not ASCII (0xc3)");
  EXPECT_FALSE(parse_push_url("http://gw\x7f", &error));
  EXPECT_EQ(error, "byte 10 is a control character, a space or not ASCII (0x7f)");
}

// A host name is a label value: one that is not a plain path segment goes as
// instance@base64 (base64url), so it cannot add segments or labels.
TEST(WatchMetrics, HostNamesThatAreNotPlainSegmentsGoAsBase64) {
  std::string error;
  auto t = parse_push_url("http://127.0.0.1:9091", &error);
  ASSERT_TRUE(t) << error;
  EXPECT_EQ(push_group_path(*t, "build-7.example_x~", 1),
            "/metrics/job/account/instance/build-7.example_x~/pid/1");
  EXPECT_EQ(push_group_path(*t, "a/b", 1), "/metrics/job/account/instance@base64/YS9i/pid/1");
  EXPECT_EQ(push_group_path(*t, "h/../x", 2),
            "/metrics/job/account/instance@base64/aC8uLi94/pid/2");
  EXPECT_EQ(push_group_path(*t, "\xc3\xa9", 3), "/metrics/job/account/instance@base64/w6k=/pid/3");
  EXPECT_EQ(push_group_path(*t, "", 4), "/metrics/job/account/instance@base64/=/pid/4");
  EXPECT_EQ(push_group_path(*t, "ab?", 5), "/metrics/job/account/instance@base64/YWI_/pid/5");
}

// A Pushgateway that takes the connection and never answers: the push gives
// up at its deadline with that reason.
TEST(WatchMetrics, APushWithoutAnswerGivesUpAtItsDeadline) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(fd, 4), 0);  // the kernel completes the connection; nobody reads
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  std::string error;
  auto t = parse_push_url(fmt::format("http://127.0.0.1:{}", ntohs(a.sin_port)), &error);
  ASSERT_TRUE(t) << error;
  std::string reason =
      put_metrics(*t, "/metrics/job/account", "x 1\n", std::chrono::milliseconds(300));
  close(fd);
  EXPECT_EQ(reason, "no answer within 300 ms (read the answer)");
}

TEST(WatchMetrics, ReplaceFileLeavesOnlyTheTarget) {
  TempDir dir;
  EXPECT_EQ(replace_file(dir.file("a.prom"), "one\n", 0644), "");
  EXPECT_EQ(replace_file(dir.file("a.prom"), "two\n", 0644), "");
  EXPECT_EQ(read_whole(dir.file("a.prom")), "two\n");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"a.prom"});
  struct stat st;
  ASSERT_EQ(stat(dir.file("a.prom").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);  // the collector may run as another user
  EXPECT_NE(replace_file(dir.file("missing") + "/a.prom", "x", 0644), "");
}

// --- account watch --textfile ---------------------------------------------------

struct Watched {
  ProgramResult watch;
  int target_status = 0;
};

TEST(WatchTextfile, KeptUpToDateAndFinallyTheExportOfTheRecords) {
  TempDir dir, textfiles;
  // 64 MiB touched 20 ms after the start and held 3 s.
  pid_t target = start({HOLD_MEMORY_PATH, "64", "3000"});
  std::string prom = textfiles.file(fmt::format("account-watch-{}.prom", target));
  ProgramResult watch;
  std::thread watcher([&] {
    watch = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", std::to_string(target), "--textfile",
                         textfiles.path(), "--every", "1", "--test", "w", "--op", "hold", "-o",
                         dir.file("w.jsonl")});
  });
  ASSERT_TRUE(appears(prom, 2.5)) << "no textfile once the first readings exist";
  usleep(1500 * 1000);  // a second snapshot, with the memory held
  std::string mid = read_whole(prom);
  watcher.join();
  wait_for(target);
  EXPECT_EQ(watch.status, 0) << watch.err;

  EXPECT_EQ(promtool_check(mid), "") << mid;
  std::map<std::string, double> m = samples_of(mid);
  const std::string labels =
      fmt::format("{{test=\"w\",operation=\"hold\",host=\"{}\"}}", hostname());
  ASSERT_EQ(m.count("account_resident_bytes" + labels), 1u) << mid;
  // Resident: the 64 MiB held, plus the program's own pages (well under 8 MiB).
  EXPECT_GE(m["account_resident_bytes" + labels], 64 * kMiB);
  EXPECT_LE(m["account_resident_bytes" + labels], 72 * kMiB);
  EXPECT_GE(m["account_size_bytes" + labels], 64 * kMiB);
  EXPECT_EQ(m["account_processes" + labels], 1);
  EXPECT_EQ(m["account_runs" + labels], 1);
  // Touching 64 MiB costs some system time, and the watch is not yet 3 s old.
  EXPECT_GT(m["account_cpu_seconds" + labels], 0);
  EXPECT_LT(m["account_cpu_seconds" + labels], 3);

  // At the end: what account export prints for the records the watch wrote.
  std::string final_text = read_whole(prom);
  EXPECT_EQ(final_text, export_openmetrics(dir.file("w.jsonl")));
  EXPECT_EQ(promtool_check(final_text), "");
  EXPECT_EQ(names_in(textfiles.path()), std::vector<std::string>{prom.substr(prom.rfind('/') + 1)})
      << "a temporary file was left behind";
}

TEST(WatchTextfile, TreeRecordFiguresAppear) {
  TempDir dir, textfiles;
  // Two children holding 24 MiB each at the same time: only the tree record's
  // concurrent sum reaches 48 MiB, no single process does.
  std::string script = fmt::format("{0} 24 3000 & {0} 24 3000; wait", HOLD_MEMORY_PATH);
  pid_t root = start({"/bin/sh", "-c", script});
  std::string prom = textfiles.file(fmt::format("account-watch-{}.prom", root));
  ProgramResult watch;
  std::thread watcher([&] {
    watch = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", std::to_string(root), "--tree",
                         "--textfile", textfiles.path(), "--every", "1", "--test", "t", "--op",
                         "pair", "-o", dir.file("t.jsonl")});
  });
  ASSERT_TRUE(appears(prom, 2.5));
  usleep(1500 * 1000);
  std::string mid = read_whole(prom);
  watcher.join();
  wait_for(root);
  EXPECT_EQ(watch.status, 0) << watch.err;

  EXPECT_EQ(promtool_check(mid), "") << mid;
  std::map<std::string, double> m = samples_of(mid);
  const std::string labels =
      fmt::format("{{test=\"t\",operation=\"pair\",host=\"{}\"}}", hostname());
  EXPECT_GE(m["account_resident_bytes" + labels], 48 * kMiB) << mid;
  EXPECT_LE(m["account_resident_bytes" + labels], 64 * kMiB) << mid;
  // sh and its two children at least (a child seen before its exec adds one).
  EXPECT_GE(m["account_processes" + labels], 3) << mid;
  EXPECT_LE(m["account_processes" + labels], 5) << mid;

  RecordFile f = read_records(dir.file("t.jsonl"));
  ASSERT_EQ(f.trees.size(), 1u);
  std::string final_text = read_whole(prom);
  EXPECT_EQ(final_text, export_openmetrics(dir.file("t.jsonl")));
  EXPECT_EQ(samples_of(final_text)["account_resident_bytes" + labels],
            double(f.trees[0].sampled_rss_peak_bytes));
  EXPECT_EQ(names_in(textfiles.path()).size(), 1u);
}

// The publishing threads must not take the stop signals: a TERM ends the
// watch (exit 0, "running" record, the final textfile), never the process.
TEST(WatchTextfile, TermEndsTheWatchWithTheFinalTextfile) {
  TempDir dir, textfiles;
  pid_t target = start({HOLD_MEMORY_PATH, "8", "30000"});
  std::string prom = textfiles.file(fmt::format("account-watch-{}.prom", target));
  pid_t watch = fork();
  if (watch == 0) {
    execl(ACCOUNT_CLI_PATH, "account", "watch", "--pid", std::to_string(target).c_str(),
          "--textfile", textfiles.path().c_str(), "--push", "http://127.0.0.1:1", "--every", "1",
          "-o", dir.file("w.jsonl").c_str(), nullptr);
    _exit(127);
  }
  ASSERT_TRUE(appears(prom, 2.5));
  kill(watch, SIGTERM);
  int status = wait_for(watch);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(kill(target, 0), 0) << "the watched process lives on";
  kill(target, SIGKILL);
  wait_for(target);
  RecordFile f = read_records(dir.file("w.jsonl"));
  ASSERT_EQ(f.processes.size(), 1u);
  EXPECT_EQ(f.processes[0].end, "running");
  EXPECT_EQ(read_whole(prom), export_openmetrics(dir.file("w.jsonl")));
}

TEST(WatchTextfile, BadDirectoryIsOneLineAtTheStart) {
  TempDir dir;
  std::ofstream(dir.file("plain")) << "x";
  for (auto [path, reason] :
       {std::pair<std::string, std::string>{dir.file("missing"), "No such file or directory"},
        {dir.file("plain"), "not a directory"}}) {
    auto r = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", std::to_string(getpid()),
                          "--textfile", path, "-o", dir.file("w.jsonl")});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, fmt::format("account: watch: cannot write --textfile {}: {}\n", path, reason));
  }
  EXPECT_FALSE(exists(dir.file("w.jsonl"))) << "nothing is watched";
}

TEST(WatchTextfile, EveryIsCheckedAndNeedsAnOutput) {
  std::string self = std::to_string(getpid());
  auto r = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", self, "--every", "5"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "account: watch: --every needs --textfile or --push\n");
  for (const char* bad : {"0", "86401", "-1", "1.5"}) {
    r = run_program(
        {ACCOUNT_CLI_PATH, "watch", "--pid", self, "--textfile", "/tmp", "--every", bad});
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, fmt::format("account: watch: --every {} is not 1-86400 s\n", bad));
  }
  r = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", self, "--push", "https://gw:9091"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "account: watch: --push https://gw:9091: https:// is not supported: the Pushgateway "
            "must be reached over plain http://\n");
  r = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", self, "--push", "gw:9091"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "account: watch: --push gw:9091: not an http://HOST[:PORT][/PATH] URL\n");
}

// --- account watch --push ---------------------------------------------------------

TEST(WatchPush, APushgatewayHoldsTheWatchsMetrics) {
  Pushgateway gateway;
  ASSERT_NE(http_get(gateway.port(), "/-/ready"), "") << "the Pushgateway did not start";
  TempDir dir;
  pid_t target = start({HOLD_MEMORY_PATH, "32", "2500"});
  ProgramResult watch;
  std::thread watcher([&] {
    watch = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", std::to_string(target), "--push",
                         gateway.url(), "--every", "1", "--test", "p", "--op", "hold", "-o",
                         dir.file("p.jsonl")});
  });
  // Mid-run: the snapshots' pushes are there, with the memory held.
  // The samples' labels and the grouping key's, as the Pushgateway sorts them.
  std::string group = fmt::format(
      "host=\"{0}\",instance=\"{0}\",job=\"account\",operation=\"hold\",pid=\"{1}\",test=\"p\"",
      hostname(), target);
  std::map<std::string, double> mid;
  for (int i = 0; i < 300 && !mid.count("account_resident_bytes{" + group + "}"); ++i) {
    usleep(10000);
    mid = samples_of(http_get(gateway.port(), "/metrics"));
  }
  usleep(1200 * 1000);
  mid = samples_of(http_get(gateway.port(), "/metrics"));
  watcher.join();
  wait_for(target);
  EXPECT_EQ(watch.status, 0) << watch.err;
  EXPECT_EQ(watch.err.find("push to"), std::string::npos) << watch.err;
  EXPECT_GE(mid["account_resident_bytes{" + group + "}"], 32 * kMiB);
  EXPECT_LE(mid["account_resident_bytes{" + group + "}"], 40 * kMiB);

  // After the end: the final push holds account export's figures of the records.
  std::map<std::string, double> pushed = samples_of(http_get(gateway.port(), "/metrics"));
  std::map<std::string, double> exported = samples_of(export_openmetrics(dir.file("p.jsonl")));
  // Six figures of the one run, the four counters a watch reads from stat and
  // status (faults, context switches) and account_failed_runs (0 here): no
  // copied or malloc, which nothing counted in a watched process, and no I/O
  // bytes, which a watch does not read (unknown, not 0).
  ASSERT_EQ(exported.size(), 11u);
  for (const auto& [sample, value] : exported) {
    EXPECT_NE(sample.rfind("account_copied_bytes{", 0), 0u) << sample;
    EXPECT_NE(sample.rfind("account_malloc_bytes{", 0), 0u) << sample;
    EXPECT_NE(sample.rfind("account_write_bytes{", 0), 0u) << sample;
  }
  size_t faults = 0;
  for (const auto& [sample, value] : exported)
    faults += sample.rfind("account_minor_faults{", 0) == 0 && value > 0;
  EXPECT_EQ(faults, 1u);
  for (const auto& [sample, value] : exported) {
    std::string name = sample.substr(0, sample.find('{'));
    std::string key = name + "{" + group + "}";
    ASSERT_EQ(pushed.count(key), 1u) << key;
    EXPECT_EQ(pushed[key], value) << key;
  }
  // The Pushgateway's own record of the push: it was accepted.
  std::string push_time = fmt::format(
      "push_time_seconds{{instance=\"{}\",job=\"account\",pid=\"{}\"}}", hostname(), target);
  EXPECT_GT(pushed[push_time], 0);
  std::string failure_time =
      fmt::format("push_failure_time_seconds{{instance=\"{}\",job=\"account\",pid=\"{}\"}}",
                  hostname(), target);
  EXPECT_EQ(pushed[failure_time], 0);
}

TEST(WatchPush, AClosedPortIsOneWarningAndTheWatchGoesOn) {
  TempDir dir;
  int closed = free_port();  // nothing listens there
  pid_t target = start({HOLD_MEMORY_PATH, "8", "2500"});
  auto watch = run_program({ACCOUNT_CLI_PATH, "watch", "--pid", std::to_string(target), "--push",
                            fmt::format("http://127.0.0.1:{}", closed), "--every", "1", "-o",
                            dir.file("c.jsonl")});
  wait_for(target);
  EXPECT_EQ(watch.status, 0) << watch.err;
  // Three or four snapshots and the final push, all refused: one line.
  std::string expected = fmt::format(
      "account: watch: push to http://127.0.0.1:{}: connect: Connection refused\n", closed);
  EXPECT_EQ(watch.err.substr(0, expected.size()), expected);
  EXPECT_EQ(watch.err.find("push to", expected.size()), std::string::npos) << watch.err;
  RecordFile f = read_records(dir.file("c.jsonl"));
  ASSERT_EQ(f.processes.size(), 1u);
  EXPECT_EQ(f.processes[0].pid, target);
  EXPECT_EQ(f.processes[0].end, "exit");
}

}  // namespace
}  // namespace account::testing
