// -o of every command that writes a file (issues 33 point 4, 34 point 3): never
// destroys an input, never follows a link, never hangs on a FIFO, and a failed
// or interrupted write leaves the old file whole. Real account commands on
// real files.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_program.h"

namespace account::testing {
namespace {

namespace fs = std::filesystem;

const std::string kOps = std::string(ACCOUNT_TEST_DATA_DIR) + "/parse/data/ops.jsonl";

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_whole(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

ProgramResult account(std::vector<std::string> args) {
  args.insert(args.begin(), ACCOUNT_CLI_PATH);
  ProgramOptions options;
  options.timeout_s = 20;
  return run_program(args, options);
}

// Each command that writes a file, reading `input` and writing `output`.
std::vector<std::vector<std::string>> every_command(const std::string& input,
                                                    const std::string& output) {
  return {{"report", input, "-o", output},
          {"report", "--format", "html", input, "-o", output},
          {"compare", kOps, input, "-o", output},
          {"compare", "--format", "html", kOps, input, "-o", output},
          {"export", "--format", "chrome-trace", input, "-o", output},
          {"export", "--format", "openmetrics", input, "-o", output}};
}

TEST(OutputFile, AnInputNamedAsTheOutputIsRefusedBeforeReading) {
  TempDir dir;
  std::string input = dir.file("a.jsonl");
  fs::copy_file(kOps, input);
  const std::string original = read_whole(kOps);
  fs::create_symlink(input, dir.file("link.jsonl"));
  fs::create_hard_link(input, dir.file("hard.jsonl"));
  for (const std::string& output : {input, dir.file("link.jsonl"), dir.file("hard.jsonl")}) {
    for (const auto& args : every_command(input, output)) {
      ProgramResult r = account(args);
      SCOPED_TRACE(args[0] + " -o " + output);
      EXPECT_EQ(r.status, 1);
      EXPECT_EQ(r.err, "account: " + args[0] + ": -o " + output + " is the input " + input +
                           ": writing it would destroy it; name another output\n");
      EXPECT_EQ(r.out, "");
      EXPECT_EQ(read_whole(input), original);
    }
  }
  // Standard input too, and the input named through a link of its own.
  ProgramOptions in_dir;
  in_dir.cwd = dir.path();
  ProgramResult r = run_program(
      {"/bin/sh", "-c", std::string("'") + ACCOUNT_CLI_PATH + "' report -o a.jsonl < a.jsonl"},
      in_dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "account: report: -o a.jsonl is the input standard input: writing it would destroy "
            "it; name another output\n");
  r = account({"report", dir.file("link.jsonl"), "-o", input});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(read_whole(input), original);
  EXPECT_EQ(names_in(dir.path()),
            (std::vector<std::string>{"a.jsonl", "hard.jsonl", "link.jsonl"}));
}

TEST(OutputFile, ALinkAtTheTargetIsReplacedNotFollowed) {
  TempDir dir;
  write_whole(dir.file("victim"), "root's file\n");
  chmod(dir.file("victim").c_str(), 0600);
  for (const auto& args : every_command(kOps, dir.file("out"))) {
    SCOPED_TRACE(args[0]);
    fs::remove(dir.file("out"));
    fs::create_symlink(dir.file("victim"), dir.file("out"));
    ProgramResult r = account(args);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(fs::is_symlink(dir.file("out")));
    EXPECT_GT(fs::file_size(dir.file("out")), 100u);
    EXPECT_EQ(read_whole(dir.file("victim")), "root's file\n");
    struct stat st;
    ASSERT_EQ(stat(dir.file("victim").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  // A dangling link is replaced the same way; its missing target is not created.
  fs::remove(dir.file("out"));
  fs::create_symlink(dir.file("nowhere"), dir.file("out"));
  EXPECT_EQ(account({"report", kOps, "-o", dir.file("out")}).status, 0);
  EXPECT_FALSE(fs::exists(dir.file("nowhere")));
  EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"out", "victim"}));
}

TEST(OutputFile, TheSameBytesAsStandardOutputAndTheOldFilesMode) {
  TempDir dir;
  std::string out = dir.file("report.txt");
  ProgramResult to_stdout = account({"report", kOps});
  ASSERT_EQ(to_stdout.status, 0);
  EXPECT_EQ(account({"report", kOps, "-o", "-"}).out, to_stdout.out);
  EXPECT_EQ(account({"report", kOps, "-o", "/dev/null"}).status, 0);
  EXPECT_EQ(account({"report", kOps, "-o", out}).status, 0);
  EXPECT_EQ(read_whole(out), to_stdout.out);
  struct stat st;
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(
      st.st_mode & 0777, 0644u & ~[] {
        mode_t m = umask(0);
        umask(m);
        return m;
      }());
  chmod(out.c_str(), 0640);
  write_whole(out, "old\n");
  EXPECT_EQ(account({"report", kOps, "-o", out}).status, 0);
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  EXPECT_EQ(read_whole(out), to_stdout.out);
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"report.txt"});
}

TEST(OutputFile, AFifoIsRefusedAtOnceWithTheReason) {
  TempDir dir;
  ASSERT_EQ(mkfifo(dir.file("fifo").c_str(), 0600), 0);
  fs::create_symlink(dir.file("fifo"), dir.file("link"));
  for (const auto& args : every_command(kOps, dir.file("fifo"))) {
    SCOPED_TRACE(args[0]);
    auto start = std::chrono::steady_clock::now();
    ProgramResult r = account(args);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Opening a FIFO without a reader would block for ever (the 20 s timeout);
    // refusing takes the time of starting the program.
    EXPECT_LT(seconds, 5.0);
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, "account: " + args[0] + ": cannot write " + dir.file("fifo") +
                         ": it is a FIFO (refused: use -o - and a redirect)\n");
  }
  ProgramResult r = account({"export", "--format", "folded", kOps, "-o", dir.file("link")});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "account: export: cannot write " + dir.file("link") +
                       ": it is a symbolic link to a FIFO (refused: name it directly, or use -o "
                       "-)\n");
  r = account({"report", kOps, "-o", dir.path()});
  EXPECT_EQ(r.err, "account: report: cannot write " + dir.path() +
                       ": it is a directory (refused: use -o - and a redirect)\n");
}

// RLIMIT_FSIZE makes the write fail part way (EFBIG), as a full disk would.
TEST(OutputFile, AFailedWriteLeavesTheOldFileWhole) {
  TempDir dir;
  std::string out = dir.file("page.html");
  write_whole(out, "the old page\n");
  std::string command = "ulimit -f 8; trap '' XFSZ; exec '" + std::string(ACCOUNT_CLI_PATH) +
                        "' report --format html '" + kOps + "' -o '" + out + "'";
  ProgramResult r = run_program({"/bin/sh", "-c", command});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "account: report: cannot write " + out + ": File too large\n");
  EXPECT_EQ(read_whole(out), "the old page\n");
  EXPECT_EQ(names_in(dir.path()), std::vector<std::string>{"page.html"});
  // /dev/full: the write fails and says so.
  r = account({"report", kOps, "-o", "/dev/full"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "account: report: cannot write /dev/full: No space left on device\n");
}

// Interrupted while reading (a FIFO input whose writer never finishes): the old
// output stays, and no temporary file is left behind.
TEST(OutputFile, AnInterruptedCommandLeavesTheOldFileAndNoTemporary) {
  TempDir dir;
  std::string out = dir.file("out.txt"), input = dir.file("input");
  write_whole(out, "old\n");
  ASSERT_EQ(mkfifo(input.c_str(), 0600), 0);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    pid_t pid = fork();
    if (pid == 0) {
      execl(ACCOUNT_CLI_PATH, ACCOUNT_CLI_PATH, "report", input.c_str(), "-o", out.c_str(),
            nullptr);
      _exit(127);
    }
    int writer = open(input.c_str(), O_WRONLY);  // the report has started reading
    ASSERT_GE(writer, 0);
    ASSERT_EQ(write(writer, "{", 1), 1);
    // The temporary file exists while the command runs.
    for (int i = 0; i < 200 && names_in(dir.path()).size() < 3; ++i) usleep(10000);
    EXPECT_EQ(names_in(dir.path()).size(), 3u);
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    close(writer);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
    EXPECT_EQ(read_whole(out), "old\n");
    EXPECT_EQ(names_in(dir.path()), (std::vector<std::string>{"input", "out.txt"}));
  }
}

}  // namespace
}  // namespace account::testing
