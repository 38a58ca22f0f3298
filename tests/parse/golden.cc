#include "golden.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace account::testing {

std::string data_path(const std::string& name) {
  return std::string(PARSE_TEST_DIR) + "/data/" + name;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void expect_golden(const std::string& name, const std::string& actual) {
  std::string path = std::string(PARSE_TEST_DIR) + "/golden/" + name;
  const char* update = std::getenv("ACCOUNT_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  EXPECT_EQ(read_file(path), actual) << "golden file " << path;
}

Outcome report(ReportOptions options) {
  Outcome o;
  o.status = run_report(options, &o.out, [&](const std::string& m) { o.err.push_back(m); });
  return o;
}

Outcome compare(CompareOptions options) {
  Outcome o;
  o.status = run_compare(options, &o.out, [&](const std::string& m) { o.err.push_back(m); });
  return o;
}

TempFile::TempFile(const std::string& content) {
  char name[] = "/tmp/account-parse-test-XXXXXX";
  int fd = mkstemp(name);
  if (fd >= 0) {
    size_t done = 0;
    while (done < content.size()) {
      ssize_t n = write(fd, content.data() + done, content.size() - done);
      if (n <= 0) break;
      done += size_t(n);
    }
    close(fd);
  }
  path_ = name;
}

TempFile::~TempFile() {
  unlink(path_.c_str());
}

Shell run_shell(const std::string& command) {
  TempFile err_file("");
  Shell s;
  FILE* p = popen((command + " 2>'" + err_file.path() + "'").c_str(), "r");
  if (!p) return s;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) s.out.append(buf, n);
  int st = pclose(p);
  s.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  s.err = read_file(err_file.path());
  return s;
}

Shell run_account(const char* account_cli, const std::string& args) {
  return run_shell(std::string("cd '") + PARSE_TEST_DIR + "/data' && '" + account_cli + "' " +
                   args);
}

}  // namespace account::testing
