#include "shim_run.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
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

}  // namespace account::testing
