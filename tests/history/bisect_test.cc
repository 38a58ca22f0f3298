// account bisect (issue 35.6) on a generated repository of a small C program
// with a planted malloc regression: found in at most ceil(log2 N) + 2 builds,
// stored runs reused, the user's checkout untouched.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "run_program.h"
#include "synthetic_runs.h"

namespace account {
namespace {

using testing::git;
using testing::ProgramResult;
using testing::run_program;
using testing::TempDir;

constexpr int kCommits = 16;
constexpr int kPlanted = 11;  // "commit 11" allocates twice as much

std::string program(int commit) {
  return fmt::format(
      "#include <stdlib.h>\n#include <string.h>\n// revision {}\n"
      "int main(void) {{\n  size_t n = {};\n  char* p = malloc(n);\n  memset(p, 1, n);\n"
      "  free(p);\n  return 0;\n}}\n",
      commit, commit >= kPlanted ? 8192 : 4096);
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t lines(const std::string& path) {
  std::string text = read(path);
  return size_t(std::count(text.begin(), text.end(), '\n'));
}

class Bisect : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = dir.file("repo");
    mkdir(repo.c_str(), 0755);
    git(repo, {"init", "-q", "-b", "main"});
    for (int c = 1; c <= kCommits; ++c) {
      std::ofstream(repo + "/main.c") << program(c);
      git(repo, {"add", "main.c"});
      git(repo, {"-c", "user.name=T", "-c", "user.email=t@example.org", "commit", "-q", "-m",
                 fmt::format("commit {}", c)});
      shas.push_back(git(repo, {"rev-parse", "HEAD"}));
    }
  }
  ProgramResult bisect() {
    return run_program(
        {ACCOUNT_CLI_PATH, "bisect", "--store", dir.file("results.sqlite"), "--repo", repo,
         "--good", shas.front(), "--bad", shas.back(), "--fail-on", "malloc=10%", "--build",
         "cc -O0 -o prog main.c && echo built >> " + dir.file("builds"), "--", "./prog"});
  }
  TempDir dir;
  std::string repo;
  std::vector<std::string> shas;
};

TEST_F(Bisect, FindsThePlantedRegressionInLog2NPlus2BuildsLeavingTheCheckoutAlone) {
  // The user's checkout: an older commit, a change not committed, a file not tracked.
  git(repo, {"checkout", "-q", shas[3]});
  std::ofstream(repo + "/main.c", std::ios::app) << "// mine\n";
  std::ofstream(repo + "/notes.txt") << "mine\n";
  std::string status = git(repo, {"status", "--porcelain"});
  std::string source = read(repo + "/main.c");

  ProgramResult r = bisect();
  ASSERT_EQ(r.status, 0) << r.err;
  size_t n = kCommits - 1;  // the commits after the good one
  size_t limit = size_t(std::ceil(std::log2(double(n)))) + 2;
  size_t builds = lines(dir.file("builds"));
  EXPECT_LE(builds, limit);
  std::istringstream out(r.out);
  std::string first, change, count;
  std::getline(out, first);
  std::getline(out, change);
  std::getline(out, count);
  EXPECT_EQ(first, fmt::format("first bad commit: {} commit {}", shas[kPlanted - 1], kPlanted));
  EXPECT_EQ(change.rfind(fmt::format("  bisect/./prog: {} vs good: malloc +",
                                     shas[kPlanted - 1].substr(0, 12)),
                         0),
            0u)
      << change;
  EXPECT_EQ(count, fmt::format("{} builds for {} commits after the good one", builds, n));

  EXPECT_EQ(git(repo, {"rev-parse", "HEAD"}), shas[3]);
  EXPECT_EQ(git(repo, {"status", "--porcelain"}), status);
  EXPECT_EQ(read(repo + "/main.c"), source);
  EXPECT_EQ(git(repo, {"worktree", "list", "--porcelain"}).find("account-bisect"),
            std::string::npos);

  // Again: every commit it judges has stored runs, so nothing is built.
  ProgramResult again = bisect();
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(lines(dir.file("builds")), builds);
  EXPECT_EQ(again.out.substr(0, again.out.find('\n')), first);
}

TEST_F(Bisect, ABadCommitThatIsNotWorseIsOneLine) {
  ProgramResult r = run_program({ACCOUNT_CLI_PATH, "bisect", "--store", dir.file("results.sqlite"),
                                 "--repo", repo, "--good", shas[0], "--bad", shas[5], "--fail-on",
                                 "malloc=10%", "--build", "cc -o prog main.c", "--", "./prog"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.substr(r.err.rfind("account: bisect:")),
            fmt::format("account: bisect: {} is not worse than {} beyond the --fail-on limits: "
                        "nothing to look for\n",
                        shas[5], shas[0]));
  r = run_program({ACCOUNT_CLI_PATH, "bisect", "--store", dir.file("results.sqlite"), "--repo",
                   repo, "--good", shas[5], "--bad", shas[0], "--fail-on", "malloc=10%", "--",
                   "./prog"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("account: bisect: {} is not after {} on its first-parent history\n",
                               shas[0], shas[5]));
}

}  // namespace
}  // namespace account
