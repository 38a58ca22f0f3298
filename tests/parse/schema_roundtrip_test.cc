// The record schema end to end: every kind of record the writers compose
// (libaccount/record_writer.cc, the one writer of the shim, the samplers and
// account watch) is read back by parse_record (parse/record.cc) and compared
// field by field. The key names expected here are spelled out as
// docs/record-format.md has them, not taken from record_keys.h, so a key
// renamed in that one place fails here.
#include <gtest/gtest.h>
#include <string.h>
#include <sys/utsname.h>

#include <boost/json.hpp>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "next_allocator.h"
#include "record.h"
#include "record_writer.h"
#include "timeline_store.h"

namespace account {
namespace {

namespace json = boost::json;

// The parts of a process record: an identity, settings and a region whose
// slots hold known counters, as a writer finds them.
struct Image {
  std::unique_ptr<Identity> identity = std::make_unique<Identity>();
  std::unique_ptr<Settings> settings = std::make_unique<Settings>();
  std::unique_ptr<Region> region = std::make_unique<Region>();  // zeroed
  std::vector<unsigned char> timeline_storage;

  Image() {
    init_region(region.get());
    Identity& id = *identity;
    id.pid = 4242;
    id.ppid = 4200;
    id.start_realtime_ns = 1796021730654686804ull;
    copy_string(id.host, sizeof id.host, "build-7.example.org");
    id.set_exe("/usr/bin/git", 12);
    set_argv({"git", "add", "."});
    copy_string(settings->test, sizeof settings->test, "zero_small");
    copy_string(settings->op, sizeof settings->op, "add files");

    // Three slots in use: the shared overflow slot 0 and two threads' slots.
    Slot* s = region->slots;
    s[0].malloc_calls = 10, s[0].malloc_bytes = 1000, s[0].free_calls = 7;
    s[0].copied_calls = 3, s[0].copied_bytes = 300, s[0].realloc_copied_bytes = 30;
    s[0].heap_peak = 5000;
    s[1].malloc_calls = 20, s[1].malloc_bytes = 2000000, s[1].free_calls = 19;
    s[1].copied_calls = 4, s[1].copied_bytes = 40000, s[1].realloc_copied_bytes = 400;
    s[1].heap_peak = 70000;
    s[2].malloc_calls = 5, s[2].malloc_bytes = 4294967296ull * 3, s[2].free_calls = 5;
    s[2].copied_calls = 1000000, s[2].copied_bytes = 8, s[2].realloc_copied_bytes = 0;
    s[2].heap_peak = 60000;
    // Live at the end: 3 + (1 - 1) + 0 blocks; 4096 published and 100 - 50 pending bytes.
    s[1].block_adjust = 1;
    s[1].heap_shrink_room = kHeapPublishBytes + 100;
    s[2].heap_shrink_room = kHeapPublishBytes - 50;
    region->heap_published = 4096;
    s[0].temporary_allocs = 2, s[0].temporary_bytes = 20;
    s[1].temporary_allocs = 6, s[1].temporary_bytes = 384;
    // Beyond slot_limit: never claimed, never read.
    s[3].malloc_calls = 999, s[3].malloc_bytes = 999, s[3].heap_peak = 999999999;
    region->slot_limit = 3;

    region->sampled.size_bytes = 7643136;
    region->sampled.rss_bytes = 2883584;
    region->sampled.anon_bytes = 1048576;
    region->sampled.samples = 57;
    region->sampler_cpu_ns = 2500000;  // 0.0025 s
  }

  void set_argv(const std::vector<std::string>& args) {
    Identity& id = *identity;
    std::string packed;
    for (const std::string& a : args) packed.append(a).push_back('\0');
    id.set_argv(packed.data(), packed.size());
    id.argc = int(args.size());
  }

  // A timeline of `capacity` points holding `points`.
  void set_timeline(uint32_t capacity, const std::vector<TimelinePoint>& points) {
    timeline_storage.assign(timeline_mapping_size(capacity), 0);
    SharedTimeline* t = timeline();
    timeline_init(&t->state, capacity);
    t->interval_ms = 5;
    for (const TimelinePoint& p : points) timeline_add(&t->state, t->points, p);
  }
  SharedTimeline* timeline() {
    return timeline_storage.empty() ? nullptr
                                    : reinterpret_cast<SharedTimeline*>(timeline_storage.data());
  }

  RecordSource source() {
    RecordSource src;
    src.identity = identity.get();
    src.settings = settings.get();
    src.region = region.get();
    src.timeline = timeline();
    return src;
  }
};

// Slot sums of Image: slots 0-2.
constexpr uint64_t kMallocCalls = 35, kMallocBytes = 1000 + 2000000 + 4294967296ull * 3;
constexpr uint64_t kFreeCalls = 31, kCopiedCalls = 1000007, kCopiedBytes = 40308;
constexpr uint64_t kReallocCopied = 430, kHeapPeak = 70000;

FinalFigures figures() {
  FinalFigures f;
  f.end_realtime_ns = 1796021731655619921ull;
  f.cpu_user_ns = 1234567891;  // 1.234567 s (microsecond resolution)
  f.cpu_sys_ns = 5999;         // 0.000005 s
  f.peaks.vm_peak_bytes = 9000000;
  f.peaks.rss_peak_bytes = 3000000;
  f.peaks.valid = true;
  return f;
}

Ending ending(EndKind kind, int code, Writer writer = Writer::kProcess, bool known = true) {
  Ending e;
  e.kind = kind;
  e.code = code;
  e.code_known = known;
  e.writer = writer;
  return e;
}

std::string compose(const RecordSource& src, const FinalFigures& f, const Ending& e) {
  std::vector<char> storage(record_capacity(src));
  TextBuffer out(storage.data(), storage.size());
  compose_record(out, src, f, e);
  EXPECT_FALSE(out.overflowed());
  return std::string(out.data(), out.size());
}

std::string compose_tree(const TreeFigures& tree) {
  std::vector<char> storage(4096);
  TextBuffer out(storage.data(), storage.size());
  compose_tree_record(out, tree);
  EXPECT_FALSE(out.overflowed());
  return std::string(out.data(), out.size());
}

// One JSON Lines line: a single '\n', at the end.
void expect_one_line(const std::string& line) {
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
}

// Parsed both ways (parse_record and a reused RecordParser), which must agree.
template <typename T>
T parse_as(const std::string& line) {
  std::string reason;
  std::optional<Record> r = parse_record(line, &reason);
  EXPECT_TRUE(r.has_value()) << reason << "\n" << line;
  if (!r) return T{};
  EXPECT_TRUE(std::holds_alternative<T>(*r)) << line;
  RecordParser parser;
  std::optional<Record> again = parser.parse(line, &reason);
  EXPECT_TRUE(again.has_value()) << reason;
  if (!std::holds_alternative<T>(*r)) return T{};
  return std::get<T>(*r);
}

// The keys of the raw object, in the order written.
std::vector<std::string> keys_of(const json::object& o) {
  std::vector<std::string> names;
  for (const auto& kv : o) names.emplace_back(kv.key());
  return names;
}

json::object raw(const std::string& line) {
  return json::parse(line).as_object();
}

// The key sequence of a process record (docs/record-format.md).
struct Shape {
  bool namespace_pid = false;  // placed by account run from a pid namespace below its own
  bool argv_truncated = false;
  bool watch = false;  // watch_start_ns, counted: false, no sampler_cpu_s
  bool malloc_not_interposed = false;
  const char* end_key = nullptr;  // "exit_code", "signal" or none
  bool timeline = false;
  bool exec = false;  // no heap_at_exit_*
};

std::vector<std::string> process_keys(const Shape& s) {
  std::vector<std::string> k = {"schema", "kind", "pid", "ppid"};
  if (s.namespace_pid) k.push_back("namespace_pid");
  k.push_back("exe");
  k.push_back("argv");
  if (s.argv_truncated) k.push_back("argv_truncated");
  for (const char* name : {"test", "op", "host", "start_ns"}) k.push_back(name);
  if (s.watch) k.push_back("watch_start_ns");
  for (const char* name :
       {"end_ns", "cpu_user_s", "cpu_sys_s", "malloc_bytes", "malloc_calls", "free_calls",
        "realloc_copied_bytes", "copied_bytes", "copied_calls", "heap_peak_bytes"})
    k.push_back(name);
  if (!s.watch && !s.exec) k.push_back("heap_at_exit_bytes"), k.push_back("heap_at_exit_blocks");
  if (!s.watch) k.push_back("temporary_allocs"), k.push_back("temporary_bytes");
  if (s.malloc_not_interposed) k.push_back("malloc_interposed");
  if (s.watch) k.push_back("counted");
  for (const char* name : {"vm_peak_bytes", "rss_peak_bytes", "sampled_size_peak_bytes",
                           "sampled_rss_peak_bytes", "sampled_rss_anon_peak_bytes", "samples"})
    k.push_back(name);
  if (!s.watch) k.push_back("sampler_cpu_s");
  k.push_back("end");
  if (s.end_key) k.push_back(s.end_key);
  k.push_back("written_by");
  if (s.timeline) k.push_back("timeline");
  return k;
}

// Every field of ProcessRecord, one by one.
void expect_process(const ProcessRecord& got, const ProcessRecord& want) {
  EXPECT_EQ(got.host, want.host);
  EXPECT_EQ(got.pid, want.pid);
  EXPECT_EQ(got.ppid, want.ppid);
  EXPECT_EQ(got.namespace_pid, want.namespace_pid);
  EXPECT_EQ(got.exe, want.exe);
  EXPECT_EQ(got.argv, want.argv);
  EXPECT_EQ(got.test, want.test);
  EXPECT_EQ(got.op, want.op);
  EXPECT_EQ(got.start_ns, want.start_ns);
  EXPECT_EQ(got.end_ns, want.end_ns);
  EXPECT_EQ(got.cpu_user_s, want.cpu_user_s);
  EXPECT_EQ(got.cpu_sys_s, want.cpu_sys_s);
  EXPECT_EQ(got.malloc_bytes, want.malloc_bytes);
  EXPECT_EQ(got.malloc_calls, want.malloc_calls);
  EXPECT_EQ(got.free_calls, want.free_calls);
  EXPECT_EQ(got.realloc_copied_bytes, want.realloc_copied_bytes);
  EXPECT_EQ(got.copied_bytes, want.copied_bytes);
  EXPECT_EQ(got.copied_calls, want.copied_calls);
  EXPECT_EQ(got.heap_peak_bytes, want.heap_peak_bytes);
  EXPECT_EQ(got.heap_at_exit_bytes, want.heap_at_exit_bytes);
  EXPECT_EQ(got.heap_at_exit_blocks, want.heap_at_exit_blocks);
  EXPECT_EQ(got.temporary_allocs, want.temporary_allocs);
  EXPECT_EQ(got.temporary_bytes, want.temporary_bytes);
  EXPECT_EQ(got.vm_peak_bytes, want.vm_peak_bytes);
  EXPECT_EQ(got.rss_peak_bytes, want.rss_peak_bytes);
  EXPECT_EQ(got.sampled_size_peak_bytes, want.sampled_size_peak_bytes);
  EXPECT_EQ(got.sampled_rss_peak_bytes, want.sampled_rss_peak_bytes);
  EXPECT_EQ(got.sampled_rss_anon_peak_bytes, want.sampled_rss_anon_peak_bytes);
  EXPECT_EQ(got.samples, want.samples);
  EXPECT_EQ(got.sampler_cpu_s, want.sampler_cpu_s);
  EXPECT_EQ(got.end, want.end);
  EXPECT_EQ(got.exit_code, want.exit_code);
  EXPECT_EQ(got.signal, want.signal);
  EXPECT_EQ(got.written_by, want.written_by);
  EXPECT_EQ(got.aborted, want.aborted);
}

// What Image with figures() reads back as, before the ending.
ProcessRecord expected_base() {
  ProcessRecord p;
  p.host = "build-7.example.org";
  p.pid = 4242;
  p.ppid = 4200;
  p.exe = "/usr/bin/git";
  p.argv = {"git", "add", "."};
  p.test = "zero_small";
  p.op = "add files";
  p.start_ns = 1796021730654686804ull;
  p.end_ns = 1796021731655619921ull;
  p.cpu_user_s = 1.234567;
  p.cpu_sys_s = 0.000005;
  p.malloc_bytes = kMallocBytes;
  p.malloc_calls = kMallocCalls;
  p.free_calls = kFreeCalls;
  p.realloc_copied_bytes = kReallocCopied;
  p.copied_bytes = kCopiedBytes;
  p.copied_calls = kCopiedCalls;
  p.heap_peak_bytes = kHeapPeak;
  p.heap_at_exit_bytes = 4146;
  p.heap_at_exit_blocks = 3;
  p.temporary_allocs = 8;
  p.temporary_bytes = 404;
  p.vm_peak_bytes = 9000000;  // the kernel's, above the sampled
  p.rss_peak_bytes = 3000000;
  p.sampled_size_peak_bytes = 7643136;
  p.sampled_rss_peak_bytes = 2883584;
  p.sampled_rss_anon_peak_bytes = 1048576;
  p.samples = 57;
  p.sampler_cpu_s = 0.0025;
  p.written_by = "process";
  return p;
}

struct EndCase {
  const char* name;
  Ending ending;
  const char* end;
  const char* end_key;  // exit_code, signal or none
  std::optional<int64_t> exit_code, signal;
  const char* written_by;
};

TEST(SchemaRoundTrip, ProcessRecordEveryEnding) {
  const EndCase cases[] = {
      {"exit 3", ending(EndKind::kExit, 3), "exit", "exit_code", 3, std::nullopt, "process"},
      {"exit 0", ending(EndKind::kExit, 0), "exit", "exit_code", 0, std::nullopt, "process"},
      {"exit, code unknown", ending(EndKind::kExit, 0, Writer::kProcess, false), "exit", nullptr,
       std::nullopt, std::nullopt, "process"},
      {"exec", ending(EndKind::kExec, 0), "exec", nullptr, std::nullopt, std::nullopt, "process"},
      {"signal 11", ending(EndKind::kSignal, 11, Writer::kSampler), "signal", "signal",
       std::nullopt, 11, "sampler"},
      {"signal 6 by the image", ending(EndKind::kSignal, 6), "signal", "signal", std::nullopt, 6,
       "process"},
      {"killed 9", ending(EndKind::kKilled, 9, Writer::kSampler), "killed", "signal", std::nullopt,
       9, "sampler"},
      {"killed, signal unknown", ending(EndKind::kKilled, 0, Writer::kSampler, false), "killed",
       nullptr, std::nullopt, std::nullopt, "sampler"},
  };
  for (const EndCase& c : cases) {
    SCOPED_TRACE(c.name);
    Image image;
    std::string line = compose(image.source(), figures(), c.ending);
    expect_one_line(line);
    Shape shape;
    shape.end_key = c.end_key;
    shape.exec = c.ending.kind == EndKind::kExec;
    json::object o = raw(line);
    EXPECT_EQ(keys_of(o), process_keys(shape)) << line;
    EXPECT_EQ(o.at("schema").as_int64(), 1);
    EXPECT_EQ(o.at("kind").as_string(), "process");
    ProcessRecord want = expected_base();
    if (shape.exec) want.heap_at_exit_bytes = want.heap_at_exit_blocks = std::nullopt;
    want.end = c.end;
    want.exit_code = c.exit_code;
    want.signal = c.signal;
    want.written_by = c.written_by;
    expect_process(parse_as<ProcessRecord>(line), want);
  }
}

// The kernel's counters: each group written when it was read, after samples,
// and read back as the same numbers; a group not read is no key at all.
TEST(SchemaRoundTrip, KernelCountersByGroup) {
  Image image;
  FinalFigures f = figures();
  KernelCounters& k = f.counters;
  k.minor_faults = 1234, k.major_faults = 5, k.have_faults = true;
  k.voluntary_ctxsw = 120, k.involuntary_ctxsw = 3, k.have_ctxsw = true;
  k.read_bytes = 4096, k.write_bytes = 8388608, k.have_storage = true;
  k.rchar = 18446744073709551615ull, k.wchar = 0, k.have_call_bytes = true;
  std::string line = compose(image.source(), f, ending(EndKind::kExit, 0));
  expect_one_line(line);
  std::vector<std::string> want = process_keys(Shape{.end_key = "exit_code"});
  auto at = std::find(want.begin(), want.end(), "samples") + 1;
  want.insert(at, {"minor_faults", "major_faults", "voluntary_ctxsw", "involuntary_ctxsw",
                   "read_bytes", "write_bytes", "rchar", "wchar"});
  EXPECT_EQ(keys_of(raw(line)), want) << line;
  ProcessRecord p = parse_as<ProcessRecord>(line);
  EXPECT_EQ(p.minor_faults, 1234u);
  EXPECT_EQ(p.major_faults, 5u);
  EXPECT_EQ(p.voluntary_ctxsw, 120u);
  EXPECT_EQ(p.involuntary_ctxsw, 3u);
  EXPECT_EQ(p.read_bytes, 4096u);
  EXPECT_EQ(p.write_bytes, 8388608u);
  EXPECT_EQ(p.rchar, 18446744073709551615ull);
  EXPECT_EQ(p.wchar, 0u);

  // Only the faults read (a sampler's record from stat): the rest absent, unknown.
  FinalFigures faults_only = figures();
  faults_only.counters.minor_faults = 7, faults_only.counters.have_faults = true;
  ProcessRecord q = parse_as<ProcessRecord>(
      compose(image.source(), faults_only, ending(EndKind::kKilled, 9, Writer::kSampler)));
  EXPECT_EQ(q.minor_faults, 7u);
  EXPECT_EQ(q.major_faults, 0u);
  EXPECT_FALSE(q.voluntary_ctxsw);
  EXPECT_FALSE(q.read_bytes);
  EXPECT_FALSE(q.rchar);
}

TEST(SchemaRoundTrip, ProcessRecordWrittenByWatch) {
  Image image;
  RecordSource src = image.source();
  src.counted = false;
  src.watch_start_ns = 1796021730700000000ull;
  // Nothing counted inside the process: the slots are zeros.
  for (Slot& s : image.region->slots) {
    s.malloc_calls = s.malloc_bytes = s.free_calls = 0;
    s.copied_calls = s.copied_bytes = s.realloc_copied_bytes = 0;
    s.heap_peak = 0;
  }
  for (const EndCase& c : {
           EndCase{"running", ending(EndKind::kRunning, 0, Writer::kWatch), "running", nullptr,
                   std::nullopt, std::nullopt, "watch"},
           EndCase{"exit 3", ending(EndKind::kExit, 3, Writer::kWatch), "exit", "exit_code", 3,
                   std::nullopt, "watch"},
           EndCase{"killed 9", ending(EndKind::kKilled, 9, Writer::kWatch), "killed", "signal",
                   std::nullopt, 9, "watch"},
           EndCase{"reaped unseen", ending(EndKind::kKilled, 0, Writer::kWatch, false), "killed",
                   nullptr, std::nullopt, std::nullopt, "watch"},
       }) {
    SCOPED_TRACE(c.name);
    std::string line = compose(src, figures(), c.ending);
    expect_one_line(line);
    json::object o = raw(line);
    Shape shape;
    shape.watch = true;
    shape.end_key = c.end_key;
    EXPECT_EQ(keys_of(o), process_keys(shape)) << line;
    EXPECT_EQ(o.at("counted"), json::value(false));
    EXPECT_EQ(o.at("watch_start_ns").as_int64(), 1796021730700000000);
    ProcessRecord want = expected_base();
    want.malloc_bytes = want.malloc_calls = want.free_calls = 0;
    want.realloc_copied_bytes = want.copied_bytes = want.copied_calls = want.heap_peak_bytes = 0;
    want.heap_at_exit_bytes = want.heap_at_exit_blocks = std::nullopt;  // absent: unknown
    want.temporary_allocs = want.temporary_bytes = std::nullopt;
    want.sampler_cpu_s = 0;  // absent
    want.end = c.end;
    want.exit_code = c.exit_code;
    want.signal = c.signal;
    want.written_by = c.written_by;
    expect_process(parse_as<ProcessRecord>(line), want);
  }
}

TEST(SchemaRoundTrip, ArgvAndLabelsSurviveEscaping) {
  Image image;
  const std::vector<std::string> argv = {
      "sh",
      "-c",
      "echo \"quoted\" 'single' \\backslash\\",
      "two\nlines\r\n",
      "tab\there",
      "",  // an empty argument
      "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC",
      "ctl \x01\x1F\x7F end",
      "bad \xFF utf8 \xC0\xAF trunc \xE2\x82",
      "\xE2\x80\xA8 line separator",
      "/*{\"json\":[1,2]}*/",
  };
  image.set_argv(argv);
  std::string exe = "/opt/my \"app\"/bin/run\xC3\xA9";
  image.identity->set_exe(exe.data(), exe.size());  // after argv: moves it
  copy_string(image.settings->test, sizeof image.settings->test, "t\"e\\st\n\xE2\x9C\x93");
  copy_string(image.settings->op, sizeof image.settings->op,
              "op\twith\x02"
              "ctl");
  image.identity->argv_truncated = true;
  // sethostname(2) takes any bytes: the host is escaped like the labels.
  copy_string(image.identity->host, sizeof image.identity->host, "h\"o\\st\n\xFF");
  std::string line = compose(image.source(), figures(), ending(EndKind::kExit, 0));
  expect_one_line(line);
  json::object o = raw(line);
  Shape shape;
  shape.argv_truncated = true;
  shape.end_key = "exit_code";
  EXPECT_EQ(keys_of(o), process_keys(shape)) << line;
  EXPECT_EQ(o.at("argv_truncated"), json::value(true));

  ProcessRecord want = expected_base();
  want.argv = argv;
  // Invalid UTF-8 reads back as U+FFFD, one per byte that starts no valid sequence.
  want.argv[8] = "bad \xEF\xBF\xBD utf8 \xEF\xBF\xBD\xEF\xBF\xBD trunc \xEF\xBF\xBD\xEF\xBF\xBD";
  want.exe = "/opt/my \"app\"/bin/run\xC3\xA9";
  want.host = "h\"o\\st\n\xEF\xBF\xBD";
  want.test = "t\"e\\st\n\xE2\x9C\x93";
  want.op =
      "op\twith\x02"
      "ctl";
  want.end = "exit";
  want.exit_code = 0;
  expect_process(parse_as<ProcessRecord>(line), want);
}

TEST(SchemaRoundTrip, ArgvOff) {
  Image image;
  image.settings->record_argv = false;  // ACCOUNT_ARGV=0
  std::string line = compose(image.source(), figures(), ending(EndKind::kExit, 1));
  json::object o = raw(line);
  EXPECT_TRUE(o.at("argv").as_array().empty());
  ProcessRecord want = expected_base();
  want.argv.clear();
  want.end = "exit";
  want.exit_code = 1;
  expect_process(parse_as<ProcessRecord>(line), want);
}

TEST(SchemaRoundTrip, MallocNotInterposed) {
  Image image;
  RecordSource src = image.source();
  src.malloc_found = kMallocIsAnothers;
  std::string line = compose(src, figures(), ending(EndKind::kExit, 0));
  json::object o = raw(line);
  Shape shape;
  shape.malloc_not_interposed = true;
  shape.end_key = "exit_code";
  EXPECT_EQ(keys_of(o), process_keys(shape)) << line;
  EXPECT_EQ(o.at("malloc_interposed"), json::value(false));
  ProcessRecord want = expected_base();
  want.end = "exit";
  want.exit_code = 0;
  expect_process(parse_as<ProcessRecord>(line), want);
}

// An image of a pid namespace below account run's, which knew itself as pid
// 4242 there: the run's tree sampler placed it under 31337, child of 31300.
TEST(SchemaRoundTrip, PlacedFromAPidNamespaceBelowTheRuns) {
  Image image;
  image.region->run_ppid = 31300;
  image.region->run_pid = 31337;
  std::string line = compose(image.source(), figures(), ending(EndKind::kExit, 0));
  Shape shape;
  shape.namespace_pid = true;
  shape.end_key = "exit_code";
  EXPECT_EQ(keys_of(raw(line)), process_keys(shape)) << line;
  ProcessRecord want = expected_base();
  want.pid = 31337;
  want.ppid = 31300;
  want.namespace_pid = 4242;
  want.end = "exit";
  want.exit_code = 0;
  expect_process(parse_as<ProcessRecord>(line), want);
}

TEST(SchemaRoundTrip, PeaksTakeTheLargerOfKernelSampledAndLast) {
  // A sampler's record of a dead process: no kernel peaks, only the samples
  // and one last statm reading above them (resident and anon, not size).
  Image image;
  FinalFigures f = figures();
  f.peaks = MemoryPeaks{};
  f.last.size_bytes = 4096000;      // below the sampled 7643136
  f.last.resident_bytes = 3145728;  // above the sampled 2883584
  f.last.shared_bytes = 1048576;    // anon 2097152, above the sampled 1048576
  std::string line = compose(image.source(), f, ending(EndKind::kKilled, 9, Writer::kSampler));
  ProcessRecord want = expected_base();
  want.sampled_size_peak_bytes = 7643136;
  want.sampled_rss_peak_bytes = 3145728;
  want.sampled_rss_anon_peak_bytes = 2097152;
  want.vm_peak_bytes = 7643136;  // never below the sampled
  want.rss_peak_bytes = 3145728;
  want.end = "killed";
  want.signal = 9;
  want.written_by = "sampler";
  expect_process(parse_as<ProcessRecord>(line), want);

  // Kernel peaks between: vm above the sampled size, rss below the sampled rss.
  f.peaks.vm_peak_bytes = 8000000;
  f.peaks.rss_peak_bytes = 3000000;
  f.peaks.valid = true;
  line = compose(image.source(), f, ending(EndKind::kKilled, 9, Writer::kSampler));
  want.vm_peak_bytes = 8000000;
  want.rss_peak_bytes = 3145728;
  expect_process(parse_as<ProcessRecord>(line), want);
}

// An image that read no kernel peaks (a chroot without /proc) and that no
// sampler saw: vm_peak_bytes and rss_peak_bytes are unknown, left out, and
// read back as 0, which the peak rule (process_peak) takes as "not read".
TEST(SchemaRoundTrip, PeaksNeitherReadNorSampledAreLeftOut) {
  Image image;
  image.region->sampled = SampledPeaks{};
  FinalFigures f = figures();
  f.peaks = MemoryPeaks{};
  std::string line = compose(image.source(), f, ending(EndKind::kExit, 0));
  json::object o = raw(line);
  EXPECT_FALSE(o.contains("vm_peak_bytes")) << line;
  EXPECT_FALSE(o.contains("rss_peak_bytes")) << line;
  EXPECT_EQ(o.at("sampled_size_peak_bytes").as_int64(), 0) << line;
  ProcessRecord want = expected_base();
  want.vm_peak_bytes = want.rss_peak_bytes = 0;
  want.sampled_size_peak_bytes = want.sampled_rss_peak_bytes = 0;
  want.sampled_rss_anon_peak_bytes = want.samples = 0;
  want.end = "exit";
  want.exit_code = 0;
  expect_process(parse_as<ProcessRecord>(line), want);

  // Sampled once: the sample stands for both.
  image.region->sampled.size_bytes = 4096000;
  image.region->sampled.rss_bytes = 1024000;
  image.region->sampled.samples = 1;
  line = compose(image.source(), f, ending(EndKind::kExit, 0));
  ProcessRecord got = parse_as<ProcessRecord>(line);
  EXPECT_EQ(got.vm_peak_bytes, 4096000u) << line;
  EXPECT_EQ(got.rss_peak_bytes, 1024000u) << line;
}

TEST(SchemaRoundTrip, ExtremeValues) {
  Image image;
  image.identity->pid = 4194304;  // pid_max on 64-bit
  image.identity->ppid = 0;
  image.region->slots[1].malloc_bytes = UINT64_MAX - 1000 - 4294967296ull * 3;  // sum: max
  image.region->sampled = SampledPeaks{};
  image.region->sampler_cpu_ns = 0;
  FinalFigures f = figures();
  f.cpu_user_ns = 0;
  f.cpu_sys_ns = 86400ull * 1000000000ull + 999999999;  // a day and 0.999999 s
  f.peaks.vm_peak_bytes = 1ull << 47;
  f.peaks.rss_peak_bytes = 0;
  std::string line = compose(image.source(), f, ending(EndKind::kExit, 255));
  ProcessRecord want = expected_base();
  want.pid = 4194304;
  want.ppid = 0;
  want.malloc_bytes = UINT64_MAX;
  want.cpu_user_s = 0;
  want.cpu_sys_s = 86400.999999;
  want.sampled_size_peak_bytes = want.sampled_rss_peak_bytes = 0;
  want.sampled_rss_anon_peak_bytes = want.samples = 0;
  want.sampler_cpu_s = 0;
  want.vm_peak_bytes = 1ull << 47;
  want.rss_peak_bytes = 0;
  want.end = "exit";
  want.exit_code = 255;
  expect_process(parse_as<ProcessRecord>(line), want);
}

TEST(SchemaRoundTrip, ProcessRecordWithTimeline) {
  Image image;
  image.set_timeline(4, {{1500, 4096, 1024, 10, 20}, {6500, 8192, 2048, 30, 40}});
  std::string line = compose(image.source(), figures(), ending(EndKind::kExit, 0));
  expect_one_line(line);
  json::object o = raw(line);
  Shape shape;
  shape.end_key = "exit_code";
  shape.timeline = true;
  EXPECT_EQ(keys_of(o), process_keys(shape)) << line;
  const json::object& t = o.at("timeline").as_object();
  EXPECT_EQ(keys_of(t), (std::vector<std::string>{"interval_ms", "samples_per_point", "t_ms",
                                                  "size", "rss", "malloc_bytes", "copied_bytes"}));
  EXPECT_EQ(t.at("interval_ms").as_int64(), 5);
  EXPECT_EQ(t.at("samples_per_point").as_int64(), 1);
  EXPECT_EQ(t.at("t_ms"), json::parse("[1.5,6.5]"));
  EXPECT_EQ(t.at("size"), json::parse("[4096,8192]"));
  EXPECT_EQ(t.at("rss"), json::parse("[1024,2048]"));
  EXPECT_EQ(t.at("malloc_bytes"), json::parse("[10,30]"));
  EXPECT_EQ(t.at("copied_bytes"), json::parse("[20,40]"));
  ProcessRecord want = expected_base();
  want.end = "exit";
  want.exit_code = 0;
  expect_process(parse_as<ProcessRecord>(line), want);
}

// Tree records.

const char* const kCommand[] = {"git", "commit", "-m", "say \"hi\"\n\xC3\xA9"};

TreeFigures tree_figures() {
  TreeFigures t;
  t.host = "runner-3";
  t.command = kCommand;
  t.command_argc = 4;
  t.test = "zero_small";
  t.op = "commit \"all\"\n\xC3\xA9";
  t.run = 2;
  t.start_ns = 1796021730000000000ull;
  t.end_ns = 1796021731000000000ull;
  t.processes = 17;
  t.peaks.size_bytes = 123456789012ull;
  t.peaks.rss_bytes = 98765432;
  t.peaks.anon_bytes = 54321000;
  t.peaks.samples = 200;
  t.have_sampler_cpu = true;
  t.sampler_cpu_ns = 12345678;  // written in whole microseconds
  return t;
}

void expect_tree(const TreeRecord& got, const TreeRecord& want) {
  EXPECT_EQ(got.host, want.host);
  EXPECT_EQ(got.test, want.test);
  EXPECT_EQ(got.op, want.op);
  EXPECT_EQ(got.start_ns, want.start_ns);
  EXPECT_EQ(got.end_ns, want.end_ns);
  EXPECT_EQ(got.processes, want.processes);
  EXPECT_EQ(got.sampled_size_peak_bytes, want.sampled_size_peak_bytes);
  EXPECT_EQ(got.sampled_rss_peak_bytes, want.sampled_rss_peak_bytes);
  EXPECT_EQ(got.sampled_rss_anon_peak_bytes, want.sampled_rss_anon_peak_bytes);
  EXPECT_EQ(got.samples, want.samples);
  EXPECT_EQ(got.sampler_cpu_s, want.sampler_cpu_s);
  EXPECT_EQ(got.exit_code, want.exit_code);
  EXPECT_EQ(got.signal, want.signal);
  EXPECT_EQ(got.aborted, want.aborted);
  EXPECT_EQ(got.interrupted, want.interrupted);
  EXPECT_EQ(got.stop_signals, want.stop_signals);
  EXPECT_EQ(got.processes_without_shim, want.processes_without_shim);
  EXPECT_EQ(got.command, want.command);
  EXPECT_EQ(got.run, want.run);
}

TreeRecord expected_tree() {
  TreeRecord t;
  t.host = "runner-3";
  t.command.assign(std::begin(kCommand), std::end(kCommand));
  t.test = "zero_small";
  t.op = "commit \"all\"\n\xC3\xA9";
  t.run = 2;
  t.start_ns = 1796021730000000000ull;
  t.end_ns = 1796021731000000000ull;
  t.processes = 17;
  t.sampled_size_peak_bytes = 123456789012ull;
  t.sampled_rss_peak_bytes = 98765432;
  t.sampled_rss_anon_peak_bytes = 54321000;
  t.samples = 200;
  t.sampler_cpu_s = 0.012345;
  return t;
}

std::vector<std::string> tree_keys(const char* end_key, bool interrupted, bool stop_signals,
                                   bool without_shim) {
  std::vector<std::string> k = {"schema",
                                "kind",
                                "test",
                                "op",
                                "host",
                                "run",
                                "command",
                                "start_ns",
                                "end_ns",
                                "processes",
                                "sampled_size_peak_bytes",
                                "sampled_rss_peak_bytes",
                                "sampled_rss_anon_peak_bytes",
                                "samples",
                                "sampler_cpu_s"};
  if (without_shim) k.insert(k.begin() + 10, "processes_without_shim");
  if (end_key) k.push_back(end_key);
  k.push_back("aborted");
  if (interrupted) k.push_back("interrupted");
  if (stop_signals) k.push_back("stop_signals");
  return k;
}

struct TreeCase {
  const char* name;
  bool have_status;
  int wait_status;
  bool aborted;
  const char* end_key;
  std::optional<int64_t> exit_code, signal;
  int interrupted = 0;
  std::vector<int> stop_signals = {};
  uint64_t processes_without_shim = 0;
};

TEST(SchemaRoundTrip, TreeRecords) {
  const TreeCase cases[] = {
      {"exit 3", true, 3 << 8, false, "exit_code", 3, std::nullopt},
      {"exit 0", true, 0, false, "exit_code", 0, std::nullopt},
      {"signal 15", true, 15, false, "signal", std::nullopt, 15},
      {"signal 11, core dumped", true, 0x80 | 11, false, "signal", std::nullopt, 11},
      {"aborted: the timeout's SIGKILL", true, 9, true, "signal", std::nullopt, 9},
      {"aborted, no status", false, 0, true, nullptr, std::nullopt, std::nullopt},
      {"interrupted by SIGINT", true, 2, false, "signal", std::nullopt, 2, 2},
      {"interrupted by SIGTERM, the command exited 0", true, 0, false, "exit_code", 0, std::nullopt,
       15},
      // account run --stop-signal TERM --stop-signal HUP (issue 33.1)
      {"stopped by its stop signal", true, 15, false, "signal", std::nullopt, 15, 0, {15, 1}},
      // a static program in the tree (issue 33.3)
      {"processes without the shim", true, 0, false, "exit_code", 0, std::nullopt, 0, {}, 2},
  };
  for (const TreeCase& c : cases) {
    SCOPED_TRACE(c.name);
    TreeFigures figures = tree_figures();
    figures.have_status = c.have_status;
    figures.wait_status = c.wait_status;
    figures.aborted = c.aborted;
    figures.interrupted = c.interrupted;
    figures.stop_signals = c.stop_signals.data();
    figures.stop_signal_count = int(c.stop_signals.size());
    figures.processes_without_shim = c.processes_without_shim;
    std::string line = compose_tree(figures);
    expect_one_line(line);
    json::object o = raw(line);
    EXPECT_EQ(keys_of(o), tree_keys(c.end_key, c.interrupted != 0, !c.stop_signals.empty(),
                                    c.processes_without_shim != 0))
        << line;
    EXPECT_EQ(o.at("schema").as_int64(), 1);
    EXPECT_EQ(o.at("kind").as_string(), "tree");
    EXPECT_EQ(o.at("aborted"), json::value(c.aborted));
    TreeRecord want = expected_tree();
    want.exit_code = c.exit_code;
    want.signal = c.signal;
    want.aborted = c.aborted;
    if (c.interrupted) want.interrupted = c.interrupted;
    want.stop_signals.assign(c.stop_signals.begin(), c.stop_signals.end());
    want.processes_without_shim = c.processes_without_shim;
    expect_tree(parse_as<TreeRecord>(line), want);
  }
}

// account run and account watch leave the host to the writer: this machine's.
TEST(SchemaRoundTrip, TreeRecordOfThisHost) {
  TreeFigures figures = tree_figures();
  figures.host = nullptr;
  utsname names;
  ASSERT_EQ(uname(&names), 0);
  ASSERT_NE(names.nodename[0], 0);
  TreeRecord want = expected_tree();
  want.host = names.nodename;
  expect_tree(parse_as<TreeRecord>(compose_tree(figures)), want);
}

// account run's wait4 rusage of the command (issue 33, gap 2): written after
// sampler_cpu_s, the CPU in whole microseconds, ru_maxrss in bytes; read back.
TEST(SchemaRoundTrip, TreeRecordWithWaitedRusage) {
  TreeFigures figures = tree_figures();
  figures.have_waited = true;
  figures.waited_cpu_ns = 250000999;  // 0.250000 s
  figures.waited_max_rss_bytes = 4096 * 1024;
  std::string line = compose_tree(figures);
  expect_one_line(line);
  EXPECT_NE(line.find(R"("sampler_cpu_s":0.012345,"waited_cpu_s":0.250000,)"
                      R"("waited_max_rss_bytes":4194304,)"),
            std::string::npos)
      << line;
  TreeRecord got = parse_as<TreeRecord>(line);
  EXPECT_EQ(got.waited_cpu_s, std::optional<double>(0.25));
  EXPECT_EQ(got.waited_max_rss_bytes, 4194304u);
  // Absent (older records, account watch's): unknown, not 0.
  EXPECT_EQ(parse_as<TreeRecord>(compose_tree(tree_figures())).waited_cpu_s, std::nullopt);
}

// account watch's tree records (and older account run ones) have no sampler CPU.
TEST(SchemaRoundTrip, TreeRecordWithoutSamplerCpu) {
  TreeFigures figures = tree_figures();
  figures.have_sampler_cpu = false;
  std::string line = compose_tree(figures);
  EXPECT_FALSE(raw(line).contains("sampler_cpu_s")) << line;
  TreeRecord want = expected_tree();
  want.sampler_cpu_s.reset();
  expect_tree(parse_as<TreeRecord>(line), want);
}

// Many records of every kind in one stream, as a file holds them.
TEST(SchemaRoundTrip, OneParserReadsAMixedStream) {
  Image image;
  std::vector<std::string> lines = {
      compose(image.source(), figures(), ending(EndKind::kExec, 0)),
      compose_tree(tree_figures()),
      compose(image.source(), figures(), ending(EndKind::kKilled, 0, Writer::kSampler, false)),
  };
  RecordParser parser;
  std::string reason;
  for (size_t i = 0; i < 3; ++i) {
    std::string line = lines[i];
    line.pop_back();  // a reader hands over lines without their '\n'
    std::optional<Record> r = parser.parse(line, &reason);
    ASSERT_TRUE(r) << reason;
    EXPECT_EQ(r->index(), i == 1 ? 1u : 0u);
  }
}

}  // namespace
}  // namespace account
