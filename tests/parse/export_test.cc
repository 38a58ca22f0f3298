// account export, one test per format on hand-made records
// (data/export/records.jsonl: an exec chain with a child under one tree, a
// second operation run twice; timelines and backtraces), checked against the
// records and against the outside tools: protoc with upstream profile.proto,
// promtool.
#include "commands/export.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "golden.h"
#include "reader.h"
#include "record.h"

namespace account {
namespace {

namespace json = boost::json;
using testing::data_path;

const char* kRecords = "export/records.jsonl";

// Names three functions of the git module; the libc module stays unnamed.
class FakeSymbolizer : public Symbolizer {
 public:
  std::vector<SymbolizedFrame> resolve(const std::string& path,
                                       const std::vector<uint64_t>& addresses) override {
    std::vector<SymbolizedFrame> out(addresses.size());
    if (path != "/nonexistent/bin/git") return out;
    for (size_t i = 0; i < addresses.size(); ++i) {
      if (addresses[i] == 0xc0ff) out[i] = {"xmalloc", "wrapper.c:20"};
      if (addresses[i] == 0xc1ff) out[i] = {"cmd_clone", "builtin/clone.c:100"};
      if (addresses[i] == 0xc2ff) out[i] = {"strbuf_grow", "strbuf.c:7"};
    }
    return out;
  }
};

struct Exported {
  int status = -1;
  std::string out;
  std::vector<std::string> err;
};

Exported export_as(ExportFormat format, std::vector<std::string> files = {data_path(kRecords)}) {
  FakeSymbolizer symbolizer;
  ExportOptions o;
  o.files = std::move(files);
  o.format = format;
  o.symbolizer = &symbolizer;
  Exported e;
  e.status = run_export(o, &e.out, [&](const std::string& m) { e.err.push_back(m); });
  return e;
}

std::vector<ProcessRecord> process_records(const std::string& path) {
  std::vector<ProcessRecord> out;
  std::ifstream in(path);
  std::string line, reason;
  while (std::getline(in, line))
    if (auto r = parse_record(line, &reason))
      if (auto* p = std::get_if<ProcessRecord>(&*r)) out.push_back(*p);
  return out;
}

std::vector<TreeRecord> tree_records(const std::string& path) {
  std::vector<TreeRecord> out;
  std::ifstream in(path);
  std::string line, reason;
  while (std::getline(in, line))
    if (auto r = parse_record(line, &reason))
      if (auto* t = std::get_if<TreeRecord>(&*r)) out.push_back(*t);
  return out;
}

// The backtrace totals of the records: bytes and counts of every group and of
// what was not kept.
std::pair<uint64_t, uint64_t> backtrace_totals(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  uint64_t bytes = 0, count = 0;
  while (std::getline(in, line)) {
    json::object o = json::parse(line).as_object();
    if (auto* groups = o.if_contains("backtraces"))
      for (const json::value& g : groups->as_array()) {
        bytes += g.at("bytes").to_number<uint64_t>();
        count += g.at("count").to_number<uint64_t>();
      }
    if (auto* other = o.if_contains("backtraces_other")) {
      bytes += other->at("bytes").to_number<uint64_t>();
      count += other->at("count").to_number<uint64_t>();
    }
  }
  return {bytes, count};
}

using testing::Shell;

Shell shell(const std::string& command) {
  return testing::run_shell(command);
}

bool have(const char* program) {
  return shell(std::string("command -v ") + program + " >/dev/null 2>&1").status == 0;
}

TEST(ExportFolded, TotalsEqualTheBacktraceRecords) {
  Exported e = export_as(ExportFormat::kFolded);
  ASSERT_EQ(e.status, 0);
  uint64_t total = 0;
  std::istringstream lines(e.out);
  std::string line;
  while (std::getline(lines, line)) {
    size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    total += std::stoull(line.substr(space + 1));
  }
  EXPECT_EQ(total, backtrace_totals(data_path(kRecords)).first);
  // Root first: labels, program, then the outermost frame; named frames by
  // function, unnamed ones by module+offset; equal stacks of two processes
  // stay apart by program, and the kept-nowhere bytes have their own line.
  EXPECT_NE(e.out.find("git/clone;git;libc.so.6+0x29d90;cmd_clone;xmalloc 4194304\n"),
            std::string::npos)
      << e.out;
  EXPECT_NE(e.out.find("git/clone;git-remote-https;libc.so.6+0x29d90;cmd_clone;xmalloc 5242880\n"),
            std::string::npos);
  EXPECT_NE(e.out.find("git/clone;git;libc.so.6+0x29d90;cmd_clone;0x7fffe0001234 3072\n"),
            std::string::npos);
  EXPECT_NE(e.out.find("git/clone;git;[stacks not kept in the record] 10240\n"), std::string::npos);
}

TEST(ExportChromeTrace, EveryImageOnceWithItsTimesAndPeaks) {
  Exported e = export_as(ExportFormat::kChromeTrace);
  ASSERT_EQ(e.status, 0);
  EXPECT_EQ(e.out.find("E3"), std::string::npos) << "numbers in plain form";
  json::object trace = json::parse(e.out).as_object();
  const json::array& events = trace.at("traceEvents").as_array();
  std::vector<ProcessRecord> records = process_records(data_path(kRecords));
  // Times count from the earliest record, a tree record's start included.
  uint64_t origin = UINT64_MAX;
  for (const ProcessRecord& r : records) origin = std::min(origin, r.start_ns);
  for (const TreeRecord& t : tree_records(data_path(kRecords)))
    origin = std::min(origin, t.start_ns);
  EXPECT_EQ(origin, 1700000000000900000u);  // the first tree record's

  for (const ProcessRecord& r : records) {
    int found = 0;
    for (const json::value& v : events) {
      const json::object& ev = v.as_object();
      if (ev.at("ph") != "X" || ev.at("cat") != "process") continue;
      if (ev.at("tid").to_number<int64_t>() != r.pid) continue;
      double ts = ev.at("ts").to_number<double>();
      if (std::abs(ts - double(r.start_ns - origin) / 1000.0) > 0.0005) continue;
      ++found;
      EXPECT_NEAR(ev.at("dur").to_number<double>(), double(r.end_ns - r.start_ns) / 1000.0, 0.0005);
      EXPECT_EQ(ev.at("args").at("exe"), r.exe.c_str());
    }
    EXPECT_EQ(found, 1) << "pid " << r.pid << " start " << r.start_ns;
  }

  // A pid's size and resident tracks peak at its images' sampled peaks.
  std::map<int64_t, std::pair<uint64_t, uint64_t>> peaks;
  for (const ProcessRecord& r : records) {
    if (!r.timeline) continue;
    auto& [size, rss] = peaks[r.pid];
    size = std::max(size, r.sampled_size_peak_bytes);
    rss = std::max(rss, r.sampled_rss_peak_bytes);
  }
  ASSERT_EQ(peaks.size(), 2u);
  auto track_max = [&](const std::string& name) {
    uint64_t most = 0;
    for (const json::value& v : events)
      if (v.at("ph") == "C" && v.at("name") == name.c_str())
        most = std::max(most, v.at("args").at("bytes").to_number<uint64_t>());
    return most;
  };
  for (const auto& [pid, peak] : peaks) {
    EXPECT_EQ(track_max("pid " + std::to_string(pid) + " size"), peak.first) << pid;
    EXPECT_EQ(track_max("pid " + std::to_string(pid) + " resident"), peak.second) << pid;
  }

  // One group per (test, operation, run): clone once, status twice.
  std::vector<std::string> groups;
  for (const json::value& v : events)
    if (v.at("ph") == "M" && v.at("name") == "process_name")
      groups.push_back(std::string(v.at("args").at("name").as_string()));
  EXPECT_EQ(groups, (std::vector<std::string>{"git / clone / run 1", "git / status / run 1",
                                              "git / status / run 2"}));

  // The tree's curves: git at 8 MB (11.5 ms) with git-remote-https at 9 MB (11.25 ms).
  uint64_t tree_size = track_max("tree size");
  EXPECT_EQ(tree_size, 17000000u);
  EXPECT_EQ(track_max("tree resident"), 9000000u);  // 4 MB + 5 MB at 11.5 ms
  // git's size peak (8.5 MB) is above its timeline (8 MB at most): the
  // sampler's last reading, at the image's end (20 ms after the first
  // process, 20.1 ms after the tree record, the origin).
  bool end_reading = false;
  for (const json::value& v : events)
    if (v.at("ph") == "C" && v.at("name") == "pid 100 size" &&
        v.at("args").at("bytes").to_number<uint64_t>() == 8500000u)
      end_reading = std::abs(v.at("ts").to_number<double>() - 20100.456) < 0.0005;
  EXPECT_TRUE(end_reading);
}

TEST(ExportOpenMetrics, PromtoolAcceptsItAndValuesAreTheReportsFigures) {
  Exported e = export_as(ExportFormat::kOpenMetrics);
  ASSERT_EQ(e.status, 0);
  EXPECT_TRUE(e.out.ends_with("# EOF\n"));
  if (have("promtool")) {
    testing::TempFile file(e.out);
    Shell check = shell("promtool check metrics < '" + file.path() + "' 2>&1");
    EXPECT_EQ(check.status, 0) << check.out << e.out;
  } else {
    ADD_FAILURE() << "promtool not installed (Debian package prometheus; scripts/install-deps.sh)";
  }

  ReportOptions ro;
  ro.files = {data_path(kRecords)};
  ro.format = Format::kCsv;
  testing::Outcome csv = testing::report(ro);
  ASSERT_EQ(csv.status, 0);
  // test,operation,cpu_s,size_mib,resident_mib,copied_mib,malloc_mib,runs,wall_s,processes,
  // processes_without_shim
  const char* families[] = {"account_cpu_seconds",    "account_size_bytes",
                            "account_resident_bytes", "account_copied_bytes",
                            "account_malloc_bytes",   "account_runs",
                            "account_wall_seconds",   "account_processes"};
  const double scale[] = {1, 1048576, 1048576, 1048576, 1048576, 1, 1, 1};
  std::istringstream rows(csv.out);
  std::string row;
  std::getline(rows, row);  // header
  int checked = 0;
  while (std::getline(rows, row)) {
    std::vector<std::string> cells;
    std::stringstream cs(row);
    std::string cell;
    while (std::getline(cs, cell, ',')) cells.push_back(cell);
    ASSERT_EQ(cells.size(), 11u) << row;
    EXPECT_EQ(cells[10], "0") << row;  // every process of these records had the shim
    for (size_t i = 0; i < 8; ++i) {
      std::string prefix = std::string(families[i]) + "{test=\"" + cells[0] + "\",operation=\"" +
                           cells[1] + "\",host=\"\"} ";  // records without a host: an empty label
      size_t at = e.out.find(prefix);
      ASSERT_NE(at, std::string::npos) << prefix;
      size_t end = e.out.find('\n', at);
      double value = std::stod(e.out.substr(at + prefix.size(), end - at - prefix.size()));
      double expected = std::stod(cells[2 + i]) * scale[i];
      EXPECT_NEAR(value, expected, std::abs(expected) * 1e-12) << prefix;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 16);
}

TEST(ExportPprof, ProtocDecodesItAndSamplesSumToTheRecords) {
  Exported e = export_as(ExportFormat::kPprof);
  ASSERT_EQ(e.status, 0);
  ASSERT_TRUE(have("protoc")) << "protoc not installed (Debian package protobuf-compiler)";
  std::string proto_dir = ACCOUNT_PPROF_PROTO_DIR;
  testing::TempFile file(e.out);
  Shell decoded = shell("gzip -dc < '" + file.path() + "' | protoc -I '" + proto_dir +
                        "' --decode=perftools.profiles.Profile profile.proto");
  ASSERT_EQ(decoded.status, 0) << decoded.out;
  // Samples' values come in pairs: alloc_objects (count), alloc_space (bytes).
  uint64_t count = 0, bytes = 0;
  bool in_sample = false;
  int index = 0;
  std::istringstream lines(decoded.out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line == "sample {") in_sample = true, index = 0;
    if (line == "}") in_sample = false;
    if (in_sample && line.rfind("  value: ", 0) == 0) {
      uint64_t v = std::stoull(line.substr(9));
      (index++ % 2 == 0 ? count : bytes) += v;
    }
  }
  auto [record_bytes, record_count] = backtrace_totals(data_path(kRecords));
  EXPECT_EQ(bytes, record_bytes);
  EXPECT_EQ(count, record_count);
  for (const char* s : {"alloc_space", "alloc_objects", "bytes", "count", "test", "operation",
                        "pid", "executable", "/usr/lib/git-core/git-remote-https",
                        "0123456789abcdef0123456789abcdef01234567", "cmd_clone", "builtin/clone.c"})
    EXPECT_NE(decoded.out.find(std::string("string_table: \"") + s + "\""), std::string::npos) << s;
  EXPECT_NE(decoded.out.find("  num: 101\n"), std::string::npos);  // a pid label
}

// Two hosts' records interleaved (data/two-hosts.jsonl, see hosts_test.cc):
// each host its own series, group and stacks, with the figures of its run.
// A run with its tree record and no process record (a static command that
// wrote none) still has its run slice, over the tree record's window, with
// the report's figures: Copied and Malloc unknown (null).
TEST(ExportChromeTrace, RunWithOnlyATreeRecordHasItsSlice) {
  testing::TempFile records(
      R"({"schema":1,"kind":"tree","test":"t","op":"static","run":1,"command":["prog"],)"
      R"("start_ns":1700000000000000000,"end_ns":1700000000002500000,"processes":1,)"
      R"("processes_without_shim":1,"sampled_size_peak_bytes":4194304,)"
      R"("sampled_rss_peak_bytes":1048576,"samples":1,"aborted":false,"exit_code":0})"
      "\n");
  Exported e = export_as(ExportFormat::kChromeTrace, {records.path()});
  ASSERT_EQ(e.status, 0);
  json::value trace = json::parse(e.out);
  const json::array& events = trace.at("traceEvents").as_array();
  int slices = 0;
  for (const json::value& v : events) {
    if (v.at("ph") != "X") continue;
    ++slices;
    EXPECT_EQ(v.at("cat"), "run");
    EXPECT_EQ(v.at("name"), "t / static / run 1");
    EXPECT_EQ(v.at("ts").to_number<double>(), 0.0);
    EXPECT_EQ(v.at("dur").to_number<double>(), 2500.0);
    const json::object& args = v.at("args").as_object();
    EXPECT_EQ(args.at("size_bytes").to_number<uint64_t>(), 4194304u);
    EXPECT_EQ(args.at("processes_without_shim").to_number<uint64_t>(), 1u);
    EXPECT_TRUE(args.at("copied_bytes").is_null());
    EXPECT_TRUE(args.at("malloc_bytes").is_null());
  }
  EXPECT_EQ(slices, 1) << e.out;
}

TEST(ExportHosts, OpenMetricsLabelsEachHost) {
  Exported e = export_as(ExportFormat::kOpenMetrics, {data_path("two-hosts.jsonl")});
  ASSERT_EQ(e.status, 0);
  for (const char* line : {
           "account_cpu_seconds{test=\"accounts\",operation=\"login\",host=\"beta\"} 1.3\n",
           "account_cpu_seconds{test=\"accounts\",operation=\"login\",host=\"alpha\"} 0.7\n",
           "account_size_bytes{test=\"accounts\",operation=\"login\",host=\"beta\"} 209715200\n",
           "account_size_bytes{test=\"accounts\",operation=\"login\",host=\"alpha\"} 367001600\n",
           "account_resident_bytes{test=\"accounts\",operation=\"login\",host=\"alpha\"} "
           "104857600\n",
           "account_copied_bytes{test=\"accounts\",operation=\"login\",host=\"beta\"} 49283072\n",
           "account_malloc_bytes{test=\"accounts\",operation=\"login\",host=\"alpha\"} 14680064\n",
           "account_runs{test=\"accounts\",operation=\"login\",host=\"alpha\"} 1\n",
           "account_processes{test=\"accounts\",operation=\"login\",host=\"beta\"} 3\n",
       })
    EXPECT_NE(e.out.find(line), std::string::npos) << line << e.out;
  ASSERT_TRUE(have("promtool")) << "promtool not installed (Debian package prometheus)";
  testing::TempFile file(e.out);
  Shell check = shell("promtool check metrics < '" + file.path() + "' 2>&1");
  EXPECT_EQ(check.status, 0) << check.out << e.out;
}

TEST(ExportHosts, ChromeTraceGroupPerHost) {
  Exported e = export_as(ExportFormat::kChromeTrace, {data_path("two-hosts.jsonl")});
  ASSERT_EQ(e.status, 0);
  json::value trace = json::parse(e.out);
  const json::array& events = trace.at("traceEvents").as_array();
  std::map<int64_t, std::string> group_name;
  for (const json::value& v : events)
    if (v.at("ph") == "M" && v.at("name") == "process_name")
      group_name[v.at("pid").to_number<int64_t>()] = v.at("args").at("name").as_string();
  EXPECT_EQ(group_name, (std::map<int64_t, std::string>{{1, "accounts / login / run 1 on beta"},
                                                        {2, "accounts / login / run 1 on alpha"}}));
  // Each group: its host's three images in start order (pid 100 twice, an
  // exec chain), and the run's host and CPU in the run slice.
  std::map<int64_t, std::vector<std::string>> images;
  for (const json::value& v : events) {
    if (v.at("ph") != "X") continue;
    int64_t group = v.at("pid").to_number<int64_t>();
    if (v.at("cat") == "run") {
      EXPECT_EQ(v.at("args").at("host"), group == 1 ? "beta" : "alpha");
      EXPECT_NEAR(v.at("args").at("cpu_s").to_number<double>(), group == 1 ? 1.3 : 0.7, 1e-9);
      continue;
    }
    images[group].push_back(fmt::format("{} {}", v.at("tid").to_number<int64_t>(),
                                        std::string(v.at("args").at("exe").as_string())));
  }
  std::vector<std::string> want = {"100 /bin/sh", "100 /usr/bin/git", "101 /usr/bin/ssh"};
  EXPECT_EQ(images[1], want);
  EXPECT_EQ(images[2], want);
}

TEST(ExportHosts, FoldedAndPprofNameTheHost) {
  Exported folded = export_as(ExportFormat::kFolded, {data_path("two-hosts.jsonl")});
  ASSERT_EQ(folded.status, 0);
  EXPECT_EQ(folded.out,
            "alpha;accounts/login;git;git+0x2001;git+0x1235 4194304\n"
            "beta;accounts/login;git;git+0x2001;git+0x1235 6291456\n");
  Exported pprof = export_as(ExportFormat::kPprof, {data_path("two-hosts.jsonl")});
  ASSERT_EQ(pprof.status, 0);
  ASSERT_TRUE(have("protoc")) << "protoc not installed (Debian package protobuf-compiler)";
  testing::TempFile file(pprof.out);
  Shell decoded = shell("gzip -dc < '" + file.path() + "' | protoc -I '" +
                        std::string(ACCOUNT_PPROF_PROTO_DIR) +
                        "' --decode=perftools.profiles.Profile profile.proto");
  ASSERT_EQ(decoded.status, 0) << decoded.out;
  for (const char* s : {"host", "alpha", "beta"})
    EXPECT_NE(decoded.out.find(std::string("string_table: \"") + s + "\""), std::string::npos) << s;
  // Two samples (one per host), each with a host label: five labels a sample.
  size_t samples = 0, labels = 0;
  for (size_t at = 0; (at = decoded.out.find("\nsample {", at)) != std::string::npos; ++at)
    ++samples;
  for (size_t at = 0; (at = decoded.out.find("  label {", at)) != std::string::npos; ++at) ++labels;
  EXPECT_EQ(samples, 2u);
  EXPECT_EQ(labels, 10u);
}

TEST(ExportInput, BadLinesAsReport) {
  Exported bad = export_as(ExportFormat::kFolded, {data_path("bad.jsonl")});
  EXPECT_EQ(bad.status, 2);
  ASSERT_FALSE(bad.err.empty());
  EXPECT_EQ(bad.err.front(), data_path("bad.jsonl") + ":2: not JSON (syntax error)");
  Exported missing = export_as(ExportFormat::kOpenMetrics, {"/nonexistent.jsonl"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err,
            std::vector<std::string>{
                "account: /nonexistent.jsonl: cannot open: No such file or directory"});
}

}  // namespace
}  // namespace account
