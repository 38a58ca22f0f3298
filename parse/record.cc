#include "record.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <cmath>
#include <type_traits>

#include "../libaccount/record_keys.h"

namespace account {

namespace json = boost::json;

namespace {

class Fields {
 public:
  explicit Fields(const json::object& o) : o_(o) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  void u64(const char* key, uint64_t& out, bool required = true) {
    const json::value* v = find(key, required);
    if (!v) return;
    if (v->is_uint64()) {
      out = v->as_uint64();
    } else if (v->is_int64() && v->as_int64() >= 0) {
      out = uint64_t(v->as_int64());
    } else {
      wrong(key, "a non-negative integer");
    }
  }
  void i64(const char* key, int64_t& out, bool required = true) {
    const json::value* v = find(key, required);
    if (!v) return;
    if (v->is_int64()) {
      out = v->as_int64();
    } else if (v->is_uint64() && v->as_uint64() <= uint64_t(INT64_MAX)) {
      out = int64_t(v->as_uint64());
    } else {
      wrong(key, "an integer");
    }
  }
  void optional_i64(const char* key, std::optional<int64_t>& out) {
    if (!o_.contains(key) || o_.at(key).is_null()) return;
    int64_t v = 0;
    i64(key, v);
    out = v;
  }
  void optional_u64(const char* key, std::optional<uint64_t>& out) {
    if (!o_.contains(key) || o_.at(key).is_null()) return;
    uint64_t v = 0;
    u64(key, v);
    out = v;
  }
  void optional_number(const char* key, std::optional<double>& out) {
    if (!o_.contains(key) || o_.at(key).is_null()) return;
    double v = 0;
    number(key, v);
    out = v;
  }
  // Every number a record holds is a count, a size or seconds: never negative,
  // never infinite (1e999 parses as infinity).
  void number(const char* key, double& out, bool required = true) {
    const json::value* v = find(key, required);
    if (!v) return;
    double d = v->is_number() ? v->to_number<double>() : -1;
    if (std::isfinite(d) && d >= 0)
      out = d;
    else
      wrong(key, "a non-negative finite number");
  }
  void string(const char* key, std::string& out, bool required = true) {
    const json::value* v = find(key, required);
    if (!v) return;
    if (v->is_string())
      out = std::string(v->as_string());
    else
      wrong(key, "a string");
  }
  void boolean(const char* key, bool& out) {
    const json::value* v = find(key, false);
    if (!v) return;
    if (v->is_bool())
      out = v->as_bool();
    else
      wrong(key, "true or false");
  }
  // An optional timeline object; its columns (t_ms, size, rss) must be arrays
  // of numbers of equal length.
  void timeline(const char* key, std::optional<Timeline>& out) {
    const json::value* v = find(key, false);
    if (!v) return;
    const json::object* o = v->if_object();
    if (!o) return wrong(key, "an object");
    Timeline t;
    auto column = [&](const char* name, auto& values) {
      const json::value* c = o->if_contains(name);
      if (!c) return true;
      const json::array* a = c->if_array();
      if (!a) return false;
      for (const json::value& x : *a) {
        if (!x.is_number() || !(x.to_number<double>() >= 0) ||
            !std::isfinite(x.to_number<double>()))
          return false;
        using T = typename std::decay_t<decltype(values)>::value_type;
        // A byte count written as a double must fit: converting 1e300 to u64 is undefined.
        if constexpr (std::is_integral_v<T>)
          if (x.is_double() && !(x.as_double() < 0x1p64)) return false;
        values.push_back(x.is_double()  ? T(x.as_double())
                         : x.is_int64() ? T(x.as_int64())
                                        : T(x.as_uint64()));
      }
      return true;
    };
    auto fits = [&](const auto& c) { return c.empty() || c.size() == t.t_ms.size(); };
    if (!column("t_ms", t.t_ms) || !column("size", t.size_bytes) || !column("rss", t.rss_bytes) ||
        !fits(t.size_bytes) || !fits(t.rss_bytes))
      return wrong(key,
                   "an object of non-negative number columns of equal length (t_ms, size, rss)");
    out = std::move(t);
  }
  // An optional array of signal numbers (1 to 64).
  void signals(const char* key, std::vector<int64_t>& out) {
    const json::value* v = find(key, false);
    if (!v) return;
    if (!v->is_array()) return wrong(key, "an array of signal numbers");
    for (const json::value& item : v->as_array()) {
      std::optional<int64_t> n;
      if (item.is_int64()) n = item.as_int64();
      if (item.is_uint64() && item.as_uint64() <= 64) n = int64_t(item.as_uint64());
      if (!n || *n < 1 || *n > 64) return wrong(key, "an array of signal numbers");
      out.push_back(*n);
    }
  }
  void strings(const char* key, std::vector<std::string>& out, bool required = true) {
    const json::value* v = find(key, required);
    if (!v) return;
    if (!v->is_array()) return wrong(key, "an array of strings");
    for (const json::value& item : v->as_array()) {
      if (!item.is_string()) return wrong(key, "an array of strings");
      out.emplace_back(item.as_string());
    }
  }

 private:
  const json::value* find(const char* key, bool required) {
    if (!ok()) return nullptr;
    const json::value* v = o_.if_contains(key);
    if (!v && required) error_ = fmt::format("missing key \"{}\"", key);
    return v;
  }
  void wrong(const char* key, const char* expected) {
    if (ok()) error_ = fmt::format("\"{}\" is not {}", key, expected);
  }

  const json::object& o_;
  std::string error_;
};

}  // namespace

namespace {

std::optional<Record> record_from_value(const json::value& value, std::string* reason,
                                        uint64_t* newer_schema) {
  if (!value.is_object()) {
    *reason = "not a JSON object";
    return std::nullopt;
  }
  const json::object& o = value.as_object();
  Fields f(o);
  uint64_t schema = 0;
  f.u64(keys::kSchema, schema);
  if (f.ok() && schema != kSchemaRead) {
    if (schema > kSchemaRead) *newer_schema = schema;
    *reason = fmt::format("unknown schema {}", schema);
    return std::nullopt;
  }
  std::string kind = "process";
  f.string(keys::kKind, kind, false);
  if (f.ok() && kind == "tree") {
    TreeRecord t;
    f.string(keys::kHost, t.host, false);
    f.string(keys::kTest, t.test);
    f.string(keys::kOp, t.op);
    f.u64(keys::kStartNs, t.start_ns);
    f.u64(keys::kEndNs, t.end_ns);
    f.u64(keys::kTreeEndNs, t.tree_end_ns, false);
    f.u64(keys::kProcesses, t.processes);
    f.u64(keys::kProcessesWithoutShim, t.processes_without_shim, false);
    f.u64(keys::kSampledSizePeak, t.sampled_size_peak_bytes);
    f.u64(keys::kSampledRssPeak, t.sampled_rss_peak_bytes);
    f.u64(keys::kSampledRssAnonPeak, t.sampled_rss_anon_peak_bytes, false);
    f.u64(keys::kSamples, t.samples, false);
    f.optional_number(keys::kSamplerCpu, t.sampler_cpu_s);
    f.optional_number(keys::kWaitedCpu, t.waited_cpu_s);
    f.u64(keys::kWaitedMaxRss, t.waited_max_rss_bytes, false);
    f.optional_i64(keys::kExitCode, t.exit_code);
    f.optional_i64(keys::kSignal, t.signal);
    f.boolean(keys::kAborted, t.aborted);
    f.optional_i64(keys::kInterrupted, t.interrupted);
    f.optional_u64(keys::kCgroupMemoryPeak, t.cgroup_memory_peak_bytes);
    f.optional_u64(keys::kPidsPeak, t.pids_peak);
    f.signals(keys::kStopSignals, t.stop_signals);
    f.strings(keys::kCommand, t.command, false);
    f.u64(keys::kRun, t.run, false);
    f.u64(keys::kWatchStartNs, t.watch_start_ns, false);
    f.u64(keys::kUnseenProcesses, t.unseen_processes, false);
    f.number(keys::kUnseenCpu, t.unseen_cpu_s, false);
    f.string(keys::kUnseenSource, t.unseen_source, false);
    if (!f.ok()) {
      *reason = f.error();
      return std::nullopt;
    }
    return t;
  }
  if (f.ok() && kind != "process") {
    *reason = fmt::format("unknown kind \"{}\"", kind);
    return std::nullopt;
  }
  ProcessRecord p;
  f.string(keys::kHost, p.host, false);
  f.i64(keys::kPid, p.pid);
  f.i64(keys::kPpid, p.ppid);
  f.i64(keys::kNamespacePid, p.namespace_pid, false);
  f.string(keys::kExe, p.exe);
  f.strings(keys::kArgv, p.argv);
  f.string(keys::kTest, p.test);
  f.string(keys::kOp, p.op);
  f.u64(keys::kStartNs, p.start_ns);
  f.u64(keys::kEndNs, p.end_ns);
  f.number(keys::kCpuUser, p.cpu_user_s);
  f.number(keys::kCpuSys, p.cpu_sys_s);
  f.u64(keys::kMallocBytes, p.malloc_bytes);
  f.u64(keys::kMallocCalls, p.malloc_calls);
  f.u64(keys::kFreeCalls, p.free_calls);
  f.u64(keys::kReallocCopiedBytes, p.realloc_copied_bytes, false);
  f.u64(keys::kCopiedBytes, p.copied_bytes);
  f.u64(keys::kCopiedCalls, p.copied_calls);
  f.u64(keys::kHeapPeak, p.heap_peak_bytes);
  f.u64(keys::kVmPeak, p.vm_peak_bytes, false);  // absent: unknown (0, below any sample)
  f.u64(keys::kRssPeak, p.rss_peak_bytes, false);
  f.u64(keys::kSampledSizePeak, p.sampled_size_peak_bytes);
  f.u64(keys::kSampledRssPeak, p.sampled_rss_peak_bytes);
  f.u64(keys::kSampledRssAnonPeak, p.sampled_rss_anon_peak_bytes, false);
  f.u64(keys::kSamples, p.samples);
  f.number(keys::kSamplerCpu, p.sampler_cpu_s, false);
  f.string(keys::kEnd, p.end);
  f.optional_i64(keys::kExitCode, p.exit_code);
  f.optional_i64(keys::kSignal, p.signal);
  f.string(keys::kWrittenBy, p.written_by, false);
  f.boolean(keys::kAborted, p.aborted);
  f.boolean(keys::kCounted, p.counted);
  f.boolean(keys::kMallocInterposed, p.malloc_interposed);
  f.optional_u64(keys::kMinorFaults, p.minor_faults);
  f.optional_u64(keys::kMajorFaults, p.major_faults);
  f.optional_u64(keys::kVoluntaryCtxsw, p.voluntary_ctxsw);
  f.optional_u64(keys::kInvoluntaryCtxsw, p.involuntary_ctxsw);
  f.optional_u64(keys::kReadBytes, p.read_bytes);
  f.optional_u64(keys::kWriteBytes, p.write_bytes);
  f.optional_u64(keys::kRchar, p.rchar);
  f.optional_u64(keys::kWchar, p.wchar);
  f.optional_u64(keys::kHeapAtExitBytes, p.heap_at_exit_bytes);
  f.optional_u64(keys::kHeapAtExitBlocks, p.heap_at_exit_blocks);
  f.optional_u64(keys::kTemporaryAllocs, p.temporary_allocs);
  f.optional_u64(keys::kTemporaryBytes, p.temporary_bytes);
  f.timeline(keys::kTimeline, p.timeline);
  // "running": account watch stopped before the process ended.
  if (f.ok() && p.end != "exit" && p.end != "exec" && p.end != "signal" && p.end != "killed" &&
      p.end != "running") {
    *reason = fmt::format("\"end\" is \"{}\", not exit, exec, signal, killed or running", p.end);
    return std::nullopt;
  }
  if (!f.ok()) {
    *reason = f.error();
    return std::nullopt;
  }
  return p;
}

}  // namespace

std::optional<Record> parse_record(std::string_view line, std::string* reason) {
  json::error_code ec;
  json::value value = json::parse(line, ec);
  if (ec) {
    *reason = fmt::format("not JSON ({})", ec.message());
    return std::nullopt;
  }
  uint64_t newer_schema = 0;
  return record_from_value(value, reason, &newer_schema);
}

struct RecordParser::Impl {
  // The parsed value lives in `arena`, made anew for each line. (Not
  // release(): Boost.JSON's monotonic_resource keeps doubling its next block
  // size across release(), so after a few dozen lines with long timelines it
  // asked for terabytes and threw bad_alloc.)
  unsigned char first_block[16384];
  std::optional<json::monotonic_resource> arena;
  json::parser parser;
};

RecordParser::RecordParser() : impl_(std::make_unique<Impl>()) {}
RecordParser::~RecordParser() = default;

std::optional<Record> RecordParser::parse(std::string_view line, std::string* reason) {
  impl_->parser.reset();  // drops the previous value before its arena goes
  impl_->arena.emplace(impl_->first_block, sizeof impl_->first_block);
  impl_->parser.reset(json::storage_ptr(&*impl_->arena));
  json::error_code ec;
  impl_->parser.write(line.data(), line.size(), ec);
  if (ec) {
    *reason = fmt::format("not JSON ({})", ec.message());
    return std::nullopt;
  }
  json::value value = impl_->parser.release();
  newer_schema_ = 0;
  return record_from_value(value, reason, &newer_schema_);
}

}  // namespace account
