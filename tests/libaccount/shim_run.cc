#include "shim_run.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

extern char** environ;

namespace account::testing {

Env clean_env(const Env& env) {
  Env out;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (kv.rfind("ACCOUNT_", 0) == 0) out[kv.substr(0, kv.find('='))] = std::nullopt;
  }
  out["LD_PRELOAD"] = std::nullopt;
  for (const auto& [k, v] : env) out[k] = v;
  return out;
}

size_t line_count(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return 0;  // /dev/full reads forever
  std::ifstream in(path);
  size_t n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}

std::string slurp(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "";
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string uname_n() {
  ProgramOptions o;
  o.env = clean_env();
  ProgramResult r = run_program({"/bin/uname", "-n"}, o);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.ends_with("\n")) << r.out;
  return r.out.substr(0, r.out.size() - 1);
}

ShimRun run_with_shim(const TempDir& dir, const std::vector<std::string>& argv, const Env& env,
                      size_t min_records, double settle_s) {
  ShimRun run;
  Env full = clean_env();
  full["ACCOUNT_OUTPUT"] = dir.file("records.jsonl");
  for (const auto& [k, v] : env) full[k] = v;
  run.output = full["ACCOUNT_OUTPUT"].value_or("");
  ProgramOptions options;
  options.env = full;
  options.preload = true;
  options.timeout_s = 60;
  run.result = run_program(argv, options);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(settle_s);
  while (line_count(run.output) < min_records && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::error_code ec;
  if (std::filesystem::is_regular_file(run.output, ec)) run.records = read_records(run.output);
  return run;
}

std::vector<ProcessRecord> records_of_pid(const RecordFile& f, int64_t pid) {
  std::vector<ProcessRecord> out;
  for (const auto& p : f.processes)
    if (p.pid == pid) out.push_back(p);
  return out;
}

long long value_after(const std::string& text, const std::string& key) {
  size_t at = text.find(key + "=");
  if (at == std::string::npos) return -1;
  return std::stoll(text.substr(at + key.size() + 1));
}

long long record_field(const ShimRun& run, int64_t pid, const std::string& key) {
  std::istringstream in(slurp(run.output));
  const std::string id = "\"pid\":" + std::to_string(pid) + ",";
  const std::string name = "\"" + key + "\":";
  for (std::string line; std::getline(in, line);) {
    if (line.find(id) == std::string::npos) continue;
    size_t at = line.find(name);
    if (at == std::string::npos) return -1;
    return std::stoll(line.substr(at + name.size()));
  }
  return -1;
}

uint64_t own_copied_bytes(const ShimRun& run, const ProcessRecord& r) {
  long long libc = record_field(run, r.pid, "libc_copied_bytes");
  return r.copied_bytes - uint64_t(libc > 0 ? libc : 0);
}

uint64_t own_copied_calls(const ShimRun& run, const ProcessRecord& r) {
  long long libc = record_field(run, r.pid, "libc_copied_calls");
  return r.copied_calls - uint64_t(libc > 0 ? libc : 0);
}

std::string dump(const ShimRun& run) {
  return "status " + std::to_string(run.result.status) + "\nstdout:\n" + run.result.out +
         "stderr:\n" + run.result.err + "records:\n" + slurp(run.output);
}

size_t expect_one_record_per_image(const RecordFile& f, const std::string& context) {
  EXPECT_TRUE(f.bad_lines.empty()) << f.bad_lines.front() << "\n" << context;
  std::map<int64_t, std::vector<std::string>> ends;
  for (const auto& p : f.processes) {
    // An image account run placed from a pid namespace below its own goes on
    // from an exec record that names the namespace's pid.
    auto chain = ends.find(p.namespace_pid);
    bool continues = p.namespace_pid && chain != ends.end() && chain->second.back() == "exec";
    ends[continues ? p.namespace_pid : p.pid].push_back(p.end);
  }
  for (const auto& [pid, list] : ends) {
    for (size_t i = 0; i + 1 < list.size(); ++i)
      EXPECT_EQ(list[i], "exec") << "pid " << pid << " record " << i << "\n" << context;
    EXPECT_NE(list.back(), "exec") << "pid " << pid << " has no final record\n" << context;
  }
  return f.processes.size();
}

Comparison run_both(const TempDir& dir, const std::vector<std::string>& argv, const Env& env,
                    double timeout_s) {
  namespace fs = std::filesystem;
  Comparison c;
  std::string work = dir.file("work");
  fs::create_directory(work);
  ProgramOptions plain;
  plain.env = clean_env(env);
  plain.cwd = work;
  plain.timeout_s = timeout_s;
  c.plain = run_program(argv, plain);
  fs::remove_all(work);
  fs::create_directory(work);

  Env with = clean_env(env);
  with["ACCOUNT_OUTPUT"] = dir.file("records.jsonl");
  ProgramOptions shim = plain;
  shim.env = with;
  shim.preload = true;
  c.shim.output = dir.file("records.jsonl");
  c.shim.result = run_program(argv, shim);
  c.shim.records = read_records(c.shim.output);
  return c;
}

std::string context(const Comparison& c) {
  return "plain stdout:\n" + c.plain.out + "plain stderr:\n" + c.plain.err + "\n" + dump(c.shim);
}

size_t expect_same(const Comparison& c) {
  EXPECT_FALSE(c.plain.timed_out);
  EXPECT_FALSE(c.shim.result.timed_out);
  EXPECT_EQ(c.shim.result.out, c.plain.out);
  EXPECT_EQ(c.shim.result.err, c.plain.err);
  EXPECT_EQ(c.shim.result.status, c.plain.status);
  // With libc's own copies counted (issue 17): the patch took in every image
  // (no record says it did not), so the output above is the patched libc's.
  std::string records = slurp(c.shim.output);
  EXPECT_EQ(records.find("\"libc_copies_counted\":false"), std::string::npos) << context(c);
  EXPECT_NE(records.find("\"libc_copied_calls\":"), std::string::npos) << context(c);
  return expect_one_record_per_image(c.shim.records, context(c));
}

Env git_env(const TempDir& dir) {
  return {{"HOME", dir.path()},
          {"LANG", "C"},
          {"LC_ALL", "C"},
          {"TZ", "UTC"},
          {"GIT_CONFIG_NOSYSTEM", "1"},
          {"GIT_CONFIG_GLOBAL", "/dev/null"},
          {"GIT_AUTHOR_NAME", "A U Thor"},
          {"GIT_AUTHOR_EMAIL", "author@example.com"},
          {"GIT_AUTHOR_DATE", "2005-04-07T22:13:13 +0000"},
          {"GIT_COMMITTER_NAME", "C O Mitter"},
          {"GIT_COMMITTER_EMAIL", "committer@example.com"},
          {"GIT_COMMITTER_DATE", "2005-04-07T22:13:13 +0000"},
          {"GIT_PAGER", "cat"}};
}

}  // namespace account::testing
