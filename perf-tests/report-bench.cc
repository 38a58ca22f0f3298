// report-bench: writes N synthetic records (process records of realistic size, in
// runs closed by tree records, as `account run --repeat` writes them), then runs
// `account report` on them once and prints its wall time, CPU time and peak
// resident size, measured by wait4 on that one run. With --against, another
// build's `account` reads the same file right after, and the ratios of the two
// are printed.
//
//   report-bench [--records N] [--tests T] [--ops O] [--runs R] [--file PATH]
//                [--account PATH] [--against PATH] [--format table|csv|json|markdown]
//                [--by process|host] [--keep]
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  uint64_t records = 1000000;
  unsigned tests = 20, ops = 5, runs = 10;
  std::string file = "/tmp/account-report-bench.jsonl";
  std::string account = ACCOUNT_CLI;
  std::string against;  // another build's account, measured on the same file
  std::string format = "table";
  std::string by;  // --by process|host, or the default table
  bool keep = false;
};

[[noreturn]] void usage(const char* why) {
  fmt::print(stderr,
             "report-bench: {}\nusage: report-bench [--records N] [--tests T] [--ops O] "
             "[--runs R] [--file PATH] [--account PATH] [--against PATH] [--format F] [--by B] "
             "[--keep]\n",
             why);
  std::exit(1);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(fmt::format("{} needs a value", a).c_str());
      return argv[++i];
    };
    if (a == "--records")
      o.records = std::stoull(value());
    else if (a == "--tests")
      o.tests = unsigned(std::stoul(value()));
    else if (a == "--ops")
      o.ops = unsigned(std::stoul(value()));
    else if (a == "--runs")
      o.runs = unsigned(std::stoul(value()));
    else if (a == "--file")
      o.file = value();
    else if (a == "--account")
      o.account = value();
    else if (a == "--against")
      o.against = value();
    else if (a == "--format")
      o.format = value();
    else if (a == "--by")
      o.by = value();
    else if (a == "--keep")
      o.keep = true;
    else
      usage(fmt::format("unknown option {}", a).c_str());
  }
  if (o.tests == 0 || o.ops == 0 || o.runs == 0) usage("--tests, --ops and --runs must be > 0");
  return o;
}

// Every (test, op) runs `runs` times; the records are spread evenly over all runs.
uint64_t generate(const Options& o) {
  std::FILE* f = std::fopen(o.file.c_str(), "w");
  if (!f) usage(fmt::format("cannot write {}: {}", o.file, std::strerror(errno)).c_str());
  uint64_t total_runs = uint64_t(o.tests) * o.ops * o.runs;
  uint64_t per_run = std::max<uint64_t>(1, o.records / total_runs);
  uint64_t t = 1700000000000000000ull, written = 0, pid = 1000;
  std::string line;
  for (unsigned test = 0; test < o.tests; ++test) {
    for (unsigned op = 0; op < o.ops; ++op) {
      for (unsigned run = 1; run <= o.runs; ++run) {
        uint64_t start = t;
        for (uint64_t p = 0; p < per_run && written < o.records; ++p, ++written, ++pid) {
          uint64_t s = t + p * 1000;
          line = fmt::format(
              R"({{"schema":1,"kind":"process","pid":{},"ppid":{},"exe":"/usr/lib/git-core/git",)"
              R"("argv":["git","--git-dir=/tmp/bench/repo-{}/.git","checkout","-f","branch-{}"],)"
              R"("test":"test_{}","op":"operation_{}","start_ns":{},"end_ns":{},)"
              R"("cpu_user_s":{:.6f},"cpu_sys_s":{:.6f},"malloc_bytes":{},"malloc_calls":{},)"
              R"("free_calls":{},"realloc_copied_bytes":{},"copied_bytes":{},"copied_calls":{},)"
              R"("heap_peak_bytes":{},"vm_peak_bytes":{},"rss_peak_bytes":{},)"
              R"("sampled_size_peak_bytes":{},"sampled_rss_peak_bytes":{},"samples":{},)"
              R"("sampler_cpu_s":0.000412,"end":"exit","exit_code":0,"written_by":"process"}})"
              "\n",
              pid, pid - 1, test, run, test, op, s, s + 900, double(p % 97) / 1000.0,
              double(p % 13) / 1000.0, 1000000 + p * 17, 2000 + p, 1900 + p, p * 3, 500000 + p * 11,
              300 + p, 800000 + p, 9000000 + p * 4096, 4000000 + p * 4096, 8900000 + p * 4096,
              3900000 + p * 4096, 20 + p % 7);
          std::fwrite(line.data(), 1, line.size(), f);
        }
        t += per_run * 1000 + 1000;
        line = fmt::format(
            R"({{"schema":1,"kind":"tree","test":"test_{}","op":"operation_{}","run":{},)"
            R"("start_ns":{},"end_ns":{},"processes":{},"sampled_size_peak_bytes":{},)"
            R"("sampled_rss_peak_bytes":{},"samples":{},"exit_code":0,"aborted":false}})"
            "\n",
            test, op, run, start, t - 1, per_run, 50000000 + run, 30000000 + run, 100 + run);
        std::fwrite(line.data(), 1, line.size(), f);
        t += 1000000;
      }
    }
  }
  std::fclose(f);
  return written;
}

struct Measured {
  int exit = -1;
  double wall_s = 0, cpu_s = 0, rss_mib = 0;
};

// One `account report` of the file by `account`, its output to /dev/null.
Measured measure(const Options& o, const std::string& account) {
  std::vector<const char*> args{account.c_str(), "report", "--format", o.format.c_str()};
  if (!o.by.empty()) args.insert(args.end(), {"--by", o.by.c_str()});
  args.push_back(o.file.c_str());
  args.push_back(nullptr);
  auto t0 = std::chrono::steady_clock::now();
  pid_t child = fork();
  if (child == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execv(account.c_str(), const_cast<char* const*>(args.data()));
    std::_Exit(127);
  }
  int status = 0;
  rusage ru{};
  wait4(child, &status, 0, &ru);
  Measured m;
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.cpu_s = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  m.rss_mib = double(ru.ru_maxrss) / 1024.0;
  m.exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  auto g0 = std::chrono::steady_clock::now();
  uint64_t processes = generate(o);
  double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
  struct stat st {};
  stat(o.file.c_str(), &st);
  fmt::print("generated {} process records + {} tree records, {:.1f} MB, in {:.2f} s: {}\n",
             processes, uint64_t(o.tests) * o.ops * o.runs, double(st.st_size) / 1e6, gen_s,
             o.file);

  Measured m = measure(o, o.account);
  fmt::print(
      "account report: exit {}, wall {:.2f} s, cpu {:.2f} s, peak RSS {:.1f} MiB, {:.0f} MB/s\n",
      m.exit, m.wall_s, m.cpu_s, m.rss_mib, double(st.st_size) / 1e6 / m.wall_s);
  bool ok = m.exit == 0;
  if (!o.against.empty()) {
    Measured a = measure(o, o.against);
    fmt::print("--against {}: exit {}, wall {:.2f} s, cpu {:.2f} s, peak RSS {:.1f} MiB\n",
               o.against, a.exit, a.wall_s, a.cpu_s, a.rss_mib);
    fmt::print("this build over --against: wall {:.3f}x, cpu {:.3f}x, peak RSS {:.3f}x\n",
               m.wall_s / a.wall_s, m.cpu_s / a.cpu_s, m.rss_mib / a.rss_mib);
    ok = ok && a.exit == 0;
  }
  if (!o.keep) unlink(o.file.c_str());
  return ok ? 0 : 1;
}
