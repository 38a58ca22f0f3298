// The large-allocation backtraces as a pprof profile: a gzipped
// perftools.profiles.Profile (upstream profile.proto, written with
// libprotobuf). Sample types alloc_objects/count and alloc_space/bytes, one
// sample per call-stack group with host, test, operation, pid and executable labels;
// mappings with build ids, so pprof can symbolize what account could not.
#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "formats/exporter.h"
#include "profile.pb.h"

namespace account {

namespace pb = perftools::profiles;

namespace {

// The string table: index 0 is "", every string once.
class Strings {
 public:
  explicit Strings(pb::Profile* profile) : profile_(profile) { index(""); }
  int64_t index(const std::string& s) {
    auto [it, added] = ids_.emplace(s, int64_t(ids_.size()));
    if (added) profile_->add_string_table(s);
    return it->second;
  }

 private:
  pb::Profile* profile_;
  std::unordered_map<std::string, int64_t> ids_;
};

std::string gzip(const std::string& data) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    throw std::runtime_error("zlib: deflateInit2 failed");
  std::string out(deflateBound(&z, uLong(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = uInt(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate failed");
  return out;
}

// "file:line" -> file and line (0 when there is none).
std::pair<std::string, int64_t> split_location(const std::string& location) {
  size_t colon = location.rfind(':');
  if (colon == std::string::npos) return {location, 0};
  try {
    return {location.substr(0, colon), std::stoll(location.substr(colon + 1))};
  } catch (const std::exception&) {
    return {location, 0};
  }
}

class ProfileBuilder {
 public:
  // `leaks`: some record followed its blocks (ACCOUNT_BACKTRACE_LEAKS): four
  // more sample types, what was live at the end and what was temporary.
  ProfileBuilder(const SymbolTable& symbols, bool leaks)
      : symbols_(symbols), strings_(&profile_), leaks_(leaks) {
    add_value_type(profile_.add_sample_type(), "alloc_objects", "count");
    add_value_type(profile_.add_sample_type(), "alloc_space", "bytes");
    if (leaks) {
      add_value_type(profile_.add_sample_type(), "leaked_objects", "count");
      add_value_type(profile_.add_sample_type(), "leaked_space", "bytes");
      add_value_type(profile_.add_sample_type(), "temporary_objects", "count");
      add_value_type(profile_.add_sample_type(), "temporary_space", "bytes");
    }
    add_value_type(profile_.mutable_period_type(), "alloc_space", "bytes");
    profile_.set_default_sample_type(strings_.index("alloc_space"));
    profile_.add_comment(strings_.index(
        "account export: allocations of at least the ACCOUNT_BACKTRACE_MIN threshold, or "
        "estimated from ACCOUNT_BACKTRACE_SAMPLE's samples (period: its bytes)"));
  }

  void add_process(const ProcessBacktraces& p) {
    std::vector<pb::Label> labels;
    auto text_label = [&](const char* key, const std::string& value) {
      pb::Label l;
      l.set_key(strings_.index(key));
      l.set_str(strings_.index(value));
      labels.push_back(l);
    };
    text_label("host", p.host);
    text_label("test", p.test);
    text_label("operation", p.op);
    text_label("executable", p.exe);
    pb::Label pid;
    pid.set_key(strings_.index("pid"));
    pid.set_num(p.pid);
    labels.push_back(pid);

    for (const AllocationGroup& g : p.groups) {
      pb::Sample* s = profile_.add_sample();
      for (uint64_t ip : g.frames) s->add_location_id(location_of(p, ip));  // leaf first
      s->add_value(int64_t(g.count));
      s->add_value(int64_t(g.bytes));
      add_leak_values(s, g.leaks);
      for (const pb::Label& l : labels) *s->add_label() = l;
    }
    if (p.other && p.other->count > 0) {
      // Allocations without a kept stack: one sample with no location, so totals hold.
      pb::Sample* s = profile_.add_sample();
      s->add_value(int64_t(p.other->count));
      s->add_value(int64_t(p.other->bytes));
      add_leak_values(s, p.other->leaks);
      for (const pb::Label& l : labels) *s->add_label() = l;
      text_label("stack", "not kept in the record");
      *s->add_label() = labels.back();
    }
  }

  void set_period(int64_t bytes) { profile_.set_period(bytes); }

  std::string finish() {
    // A mapping whose every location is named needs no symbolization by pprof.
    for (pb::Mapping& m : *profile_.mutable_mapping()) {
      const auto& named = named_[m.id()];
      m.set_has_functions(named.first > 0 && named.first == named.second);
      m.set_has_filenames(m.has_functions());
      m.set_has_line_numbers(m.has_functions());
    }
    return gzip(profile_.SerializeAsString());
  }

 private:
  // 0 where the record did not follow the blocks (or the image exec'd).
  void add_leak_values(pb::Sample* s, const LeakFigures& l) {
    if (!leaks_) return;
    s->add_value(int64_t(l.live_count.value_or(0)));
    s->add_value(int64_t(l.live_bytes.value_or(0)));
    s->add_value(int64_t(l.temporary_count));
    s->add_value(int64_t(l.temporary_bytes));
  }

  void add_value_type(pb::ValueType* v, const char* type, const char* unit) {
    v->set_type(strings_.index(type));
    v->set_unit(strings_.index(unit));
  }

  uint64_t mapping_of(const LoadedModule& m) {
    auto key = std::make_tuple(m.path, m.start, m.end, m.base);
    auto it = mappings_.find(key);
    if (it != mappings_.end()) return it->second;
    pb::Mapping* pm = profile_.add_mapping();
    pm->set_id(uint64_t(profile_.mapping_size()));
    pm->set_memory_start(m.start);
    pm->set_memory_limit(m.end);
    // The file address of memory_start (the offset of the object's first
    // loaded byte in its file, for the usual layout).
    pm->set_file_offset(m.start - m.base);
    pm->set_filename(strings_.index(m.path));
    pm->set_build_id(strings_.index(m.build_id));
    mappings_.emplace(key, pm->id());
    return pm->id();
  }

  uint64_t function_of(const std::string& name, const std::string& file) {
    auto key = std::make_pair(name, file);
    auto it = functions_.find(key);
    if (it != functions_.end()) return it->second;
    pb::Function* f = profile_.add_function();
    f->set_id(uint64_t(profile_.function_size()));
    f->set_name(strings_.index(name));
    f->set_system_name(strings_.index(name));
    f->set_filename(strings_.index(file));
    functions_.emplace(key, f->id());
    return f->id();
  }

  uint64_t location_of(const ProcessBacktraces& p, uint64_t ip) {
    const LoadedModule* m = p.module_of(ip);
    uint64_t mapping = m ? mapping_of(*m) : 0;
    auto key = std::make_pair(mapping, ip);
    auto it = locations_.find(key);
    if (it != locations_.end()) return it->second;
    pb::Location* l = profile_.add_location();
    l->set_id(uint64_t(profile_.location_size()));
    l->set_mapping_id(mapping);
    l->set_address(ip);
    if (m) {
      auto& named = named_[mapping];
      ++named.second;
      FrameName n = frame_name(p, ip, symbols_);
      if (n.function != "??") {
        ++named.first;
        auto [file, line] = split_location(n.location);
        pb::Line* pl = l->add_line();
        pl->set_function_id(function_of(n.function, file));
        pl->set_line(line);
      }
    }
    locations_.emplace(key, l->id());
    return l->id();
  }

  const SymbolTable& symbols_;
  pb::Profile profile_;
  Strings strings_;
  bool leaks_;
  std::map<std::tuple<std::string, uint64_t, uint64_t, uint64_t>, uint64_t> mappings_;
  std::map<std::pair<std::string, std::string>, uint64_t> functions_;
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> locations_;
  std::map<uint64_t, std::pair<size_t, size_t>> named_;  // mapping -> (named, all) locations
};

class PprofFormat : public OutputFormat {
 public:
  void write(FormatInput input, const ByteSink& out) const override { out(text(input)); }

 private:
  std::string text(const FormatInput& input) const {
    const std::vector<ProcessBacktraces>& processes = export_backtraces(input);
    bool leaks = std::any_of(processes.begin(), processes.end(),
                             [](const ProcessBacktraces& p) { return p.leaks; });
    ProfileBuilder builder(export_symbols(input), leaks);
    // Sampled records: the period is the sampling interval (the first seen).
    for (const ProcessBacktraces& p : processes)
      if (p.sample_bytes) {
        builder.set_period(int64_t(p.sample_bytes));
        break;
      }
    for (const ProcessBacktraces& p : processes) builder.add_process(p);
    return builder.finish();
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_pprof_format() {
  return std::make_unique<PprofFormat>();
}

}  // namespace account
