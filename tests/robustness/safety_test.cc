// Safety of what is written: a planted symlink never redirects the write, new
// record files are private, no environment value reaches a record, and setuid
// programs are left alone by the loader.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "robustness.h"

namespace account::testing {
namespace {

namespace fs = std::filesystem;

ProgramResult run_plain(const std::vector<std::string>& argv) {
  ProgramOptions o;
  o.env = clean_env();
  return run_program(argv, o);
}

// A symlink planted where the record file should be (as another user could in
// /tmp) is refused with one warning line; the file it points to is untouched,
// and a dangling one does not create its target.
TEST(RobustnessSafety, PlantedSymlinkIsRefusedWithOneWarning) {
  TempDir dir;
  std::ofstream(dir.file("victim")) << "precious\n";
  fs::create_symlink(dir.file("victim"), dir.file("records.jsonl"));
  fs::create_symlink(dir.file("not-there"), dir.file("dangling.jsonl"));
  std::vector<std::string> argv{test_program("hello"), "x", "3"};
  ProgramResult plain = run_plain(argv);
  for (const char* name : {"records.jsonl", "dangling.jsonl"}) {
    ShimRun run = run_with_shim(dir, argv, {{"ACCOUNT_OUTPUT", dir.file(name)}});
    EXPECT_EQ(run.result.status, plain.status);
    EXPECT_EQ(run.result.out, plain.out);
    EXPECT_EQ(run.result.err,
              "account: cannot write records to ACCOUNT_OUTPUT=" + dir.file(name) +
                  ": it is a symbolic link, or a path through one (refused); this process is not "
                  "recorded\n" +
                  plain.err);
  }
  EXPECT_EQ(slurp(dir.file("victim")), "precious\n");
  EXPECT_FALSE(fs::exists(dir.file("not-there")));
  EXPECT_TRUE(fs::is_symlink(dir.file("records.jsonl")));
}

mode_t mode_of(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

// Records can carry command lines: a new file is 0600 whatever the umask; an
// existing file keeps the mode its owner gave it.
TEST(RobustnessSafety, NewRecordFileIsPrivateExistingKeepsItsMode) {
  TempDir dir;
  mode_t old = umask(022);
  ShimRun fresh = run_with_shim(dir, {test_program("hello"), "x", "0"});
  EXPECT_EQ(fresh.records.processes.size(), 1u);
  EXPECT_EQ(mode_of(fresh.output), 0600u);
  for (mode_t mode : {0644u, 0640u, 0666u}) {
    std::string file = dir.file("existing-" + std::to_string(mode));
    std::ofstream(file).close();
    ASSERT_EQ(chmod(file.c_str(), mode), 0);
    ShimRun run = run_with_shim(dir, {"/bin/sh", "-c", "/bin/true"}, {{"ACCOUNT_OUTPUT", file}});
    EXPECT_EQ(run.records.processes.size(), 2u) << mode;
    EXPECT_EQ(mode_of(file), mode);
  }
  umask(old);
}

// No environment value is ever written: secrets in the environment of a tree
// of processes (shell, fork, exec) with every option on stay out of the file.
TEST(RobustnessSafety, NoEnvironmentValueInAnyRecord) {
  TempDir dir;
  const std::string secret = "hunter2-6f1d0c9a-env-secret";
  ShimRun run = run_with_shim(dir,
                              {"/bin/sh", "-c",
                               "/bin/true; " + test_program("processes") + " fork_exec " +
                                   test_program("hello") + " >/dev/null; echo $(/bin/echo x)"},
                              {{"ROBUSTNESS_SECRET", secret},
                               {"DATABASE_PASSWORD", secret + "-2"},
                               {"ACCOUNT_TIMELINE", "1"},
                               {"ACCOUNT_BACKTRACE_MIN", "1"},
                               {"ACCOUNT_TEST", "t"},
                               {"ACCOUNT_OP", "o"}});
  ASSERT_EQ(run.result.status, 0) << dump(run);
  EXPECT_GE(run.records.processes.size(), 5u) << dump(run);
  std::string text = slurp(run.output);
  EXPECT_EQ(text.find("hunter2"), std::string::npos) << text;
  EXPECT_EQ(text.find("ROBUSTNESS_SECRET"), std::string::npos);
  EXPECT_EQ(text.find("DATABASE_PASSWORD"), std::string::npos);
}

// The loader ignores LD_PRELOAD (a path with a slash) for a setuid program run
// by another user: no record, same output. A copy without the setuid bit, run
// the same way, is recorded (so the test can fail). Needs root to make a
// root-owned setuid binary and setpriv to drop to nobody; everything lives in
// a TempDir that is removed afterwards.
TEST(RobustnessSafety, SetuidProgramIsLeftAloneByTheLoader) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create a setuid-root test binary";
  TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  std::string out_dir = dir.file("out");
  fs::create_directory(out_dir);
  ASSERT_EQ(chmod(out_dir.c_str(), 0777), 0);
  fs::copy_file(ACCOUNT_SHIM_PATH, dir.file("libaccount.so"));
  fs::copy_file(test_program("hello"), dir.file("hello-setuid"));
  fs::copy_file(test_program("hello"), dir.file("hello-plain"));
  ASSERT_EQ(chmod(dir.file("libaccount.so").c_str(), 0755), 0);
  ASSERT_EQ(chmod(dir.file("hello-plain").c_str(), 0755), 0);
  ASSERT_EQ(chmod(dir.file("hello-setuid").c_str(), 04755), 0);
  // setpriv (root) and the program (nobody) append to the same file: make it
  // writable by both before either runs.
  for (const char* name : {"/plain.jsonl", "/setuid.jsonl"}) {
    std::ofstream(out_dir + name).close();
    ASSERT_EQ(chmod((out_dir + name).c_str(), 0666), 0);
  }
  auto run_as_nobody = [&](const std::string& program, const std::string& output) {
    ProgramOptions o;
    o.env = clean_env({{"LD_PRELOAD", dir.file("libaccount.so")}, {"ACCOUNT_OUTPUT", output}});
    return run_program(
        {"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", program, "x", "0"}, o);
  };
  ProgramResult plain = run_as_nobody(dir.file("hello-plain"), out_dir + "/plain.jsonl");
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_EQ(plain.err, "note\n");
  // setpriv itself runs with the shim and execs the program: its record ends in
  // "exec"; the program's own record follows for the plain copy only.
  auto program_records = [](const std::string& file, const std::string& exe) {
    size_t n = 0;
    for (const auto& r : read_records(file).processes) n += r.exe == exe;
    return n;
  };
  ASSERT_EQ(program_records(out_dir + "/plain.jsonl", dir.file("hello-plain")), 1u)
      << "the control run was not recorded: " << slurp(out_dir + "/plain.jsonl");
  ProgramResult setuid = run_as_nobody(dir.file("hello-setuid"), out_dir + "/setuid.jsonl");
  EXPECT_EQ(setuid.status, 0);
  EXPECT_EQ(setuid.out, "hello from x\n");
  EXPECT_EQ(setuid.err, "note\n");
  EXPECT_EQ(program_records(out_dir + "/setuid.jsonl", dir.file("hello-setuid")), 0u)
      << slurp(out_dir + "/setuid.jsonl");
  RecordFile setpriv = read_records(out_dir + "/setuid.jsonl");
  ASSERT_EQ(setpriv.processes.size(), 1u) << slurp(out_dir + "/setuid.jsonl");
  EXPECT_EQ(setpriv.processes[0].end, "exec");
}

}  // namespace
}  // namespace account::testing
