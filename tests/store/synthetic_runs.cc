#include "synthetic_runs.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "run_program.h"

namespace account::testing {

std::string run_lines(const RunSpec& s) {
  int64_t start = int64_t(s.run + 1) * 10'000'000'000;
  int64_t end = start + 1'000'000'000;
  std::string tree = fmt::format(
      R"({{"schema":1,"kind":"tree","host":"{}","test":"{}","op":"{}","start_ns":{},"end_ns":{},)"
      R"("processes":1,"sampled_size_peak_bytes":0,"sampled_rss_peak_bytes":0,"samples":1,)"
      R"("exit_code":0}})",
      s.host, s.test, s.op, start, end);
  std::string process = fmt::format(
      R"({{"schema":1,"kind":"process","host":"{}","pid":{},"ppid":1,"exe":"/bin/prog",)"
      R"("argv":["prog"],"test":"{}","op":"{}","start_ns":{},"end_ns":{},"cpu_user_s":{},)"
      R"("cpu_sys_s":0,"malloc_bytes":{},"malloc_calls":3,"free_calls":3,"copied_bytes":0,)"
      R"("copied_calls":0,"heap_peak_bytes":0,"vm_peak_bytes":{},"rss_peak_bytes":{},)"
      R"("sampled_size_peak_bytes":0,"sampled_rss_peak_bytes":0,"samples":1,"end":"exit",)"
      R"("exit_code":0}})",
      s.host, 1000 + s.run, s.test, s.op, start + 1000, end - 1000, s.cpu_s, s.malloc_bytes,
      s.rss_bytes * 2, s.rss_bytes);
  return tree + "\n" + process + "\n";
}

std::string git(const std::string& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-C", dir};
  argv.insert(argv.end(), args.begin(), args.end());
  ProgramOptions o;
  o.env["GIT_AUTHOR_NAME"] = o.env["GIT_COMMITTER_NAME"] = "Test";
  o.env["GIT_AUTHOR_EMAIL"] = o.env["GIT_COMMITTER_EMAIL"] = "test@example.org";
  ProgramResult r = run_program(argv, o);
  EXPECT_EQ(r.status, 0) << "git " << args.at(0) << ": " << r.err;
  std::string out = r.out;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::vector<std::string> make_repo(const std::string& dir, int commits) {
  git(dir, {"init", "-q", "-b", "main"});
  std::vector<std::string> shas;
  for (int i = 1; i <= commits; ++i) {
    // Distinct, increasing commit times so the order is the same everywhere.
    std::string when = fmt::format("@{} +0000", 1700000000 + i * 60);
    std::vector<std::string> argv = {"-c",
                                     "user.name=Test",
                                     "-c",
                                     "user.email=test@example.org",
                                     "commit",
                                     "-q",
                                     "--allow-empty",
                                     "--date",
                                     when,
                                     "-m",
                                     fmt::format("commit {}", i)};
    std::vector<std::string> full = {"git", "-C", dir};
    full.insert(full.end(), argv.begin(), argv.end());
    ProgramOptions o;
    o.env["GIT_COMMITTER_DATE"] = when;
    ProgramResult r = run_program(full, o);
    EXPECT_EQ(r.status, 0) << r.err;
    shas.push_back(git(dir, {"rev-parse", "HEAD"}));
  }
  return shas;
}

}  // namespace account::testing
