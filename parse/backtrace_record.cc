#include "backtrace_record.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>

#include "../libaccount/record_keys.h"

namespace account {

namespace json = boost::json;

namespace {

bool read_u64(const json::object& o, const char* key, uint64_t* out) {
  const json::value* v = o.if_contains(key);
  if (!v) return false;
  if (v->is_uint64()) {
    *out = v->as_uint64();
    return true;
  }
  if (v->is_int64() && v->as_int64() >= 0) {
    *out = uint64_t(v->as_int64());
    return true;
  }
  return false;
}

bool read_hex(const json::value& v, uint64_t* out) {
  if (!v.is_string()) return false;
  std::string_view s = v.as_string();
  if (s.size() < 3 || s[0] != '0' || s[1] != 'x') return false;
  auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), *out, 16);
  return ec == std::errc() && end == s.data() + s.size();
}

std::string string_or_empty(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool fail(std::string* reason, std::string text) {
  *reason = std::move(text);
  return false;
}

void read_leak_figures(const json::object& o, LeakFigures* out) {
  uint64_t v;
  if (read_u64(o, "live_count", &v)) out->live_count = v;
  if (read_u64(o, "live_bytes", &v)) out->live_bytes = v;
  read_u64(o, "temporary_count", &out->temporary_count);
  read_u64(o, "temporary_bytes", &out->temporary_bytes);
}

bool read_groups(const json::array& list, std::vector<AllocationGroup>* out, std::string* reason) {
  for (const json::value& item : list) {
    if (!item.is_object()) return fail(reason, "\"backtraces\" holds a non-object");
    const json::object& g = item.as_object();
    AllocationGroup group;
    if (!read_u64(g, "count", &group.count) || !read_u64(g, "bytes", &group.bytes) ||
        !read_u64(g, "largest", &group.largest))
      return fail(reason, "a backtrace group lacks count, bytes or largest");
    read_leak_figures(g, &group.leaks);
    const json::value* frames = g.if_contains("frames");
    if (!frames || !frames->is_array()) return fail(reason, "a backtrace group lacks frames");
    for (const json::value& f : frames->as_array()) {
      uint64_t ip;
      if (!read_hex(f, &ip)) return fail(reason, "a frame is not a \"0x...\" string");
      group.frames.push_back(ip);
    }
    out->push_back(std::move(group));
  }
  return true;
}

bool read_modules(const json::array& list, std::vector<LoadedModule>* out, std::string* reason) {
  for (const json::value& item : list) {
    if (!item.is_object()) return fail(reason, "\"backtrace_modules\" holds a non-object");
    const json::object& m = item.as_object();
    LoadedModule module;
    module.path = string_or_empty(m, "path");
    const json::value *base = m.if_contains("base"), *start = m.if_contains("start"),
                      *end = m.if_contains("end");
    if (!base || !start || !end || !read_hex(*base, &module.base) ||
        !read_hex(*start, &module.start) || !read_hex(*end, &module.end))
      return fail(reason, "a backtrace module lacks base, start or end");
    module.build_id = string_or_empty(m, "build_id");
    out->push_back(std::move(module));
  }
  return true;
}

}  // namespace

const LoadedModule* ProcessBacktraces::module_of(uint64_t ip) const {
  for (const LoadedModule& m : modules)
    if (ip >= m.start && ip < m.end) return &m;
  return nullptr;
}

std::optional<ProcessBacktraces> parse_backtraces(std::string_view line, std::string* reason) {
  reason->clear();
  boost::system::error_code ec;
  json::value v = json::parse(line, ec);
  if (ec) {
    *reason = "not JSON: " + ec.message();
    return std::nullopt;
  }
  if (!v.is_object()) {
    *reason = "not a JSON object";
    return std::nullopt;
  }
  const json::object& o = v.as_object();
  const json::value* groups = o.if_contains("backtraces");
  if (!groups) return std::nullopt;
  if (!groups->is_array()) {
    *reason = "\"backtraces\" is not an array";
    return std::nullopt;
  }
  ProcessBacktraces p;
  p.host = string_or_empty(o, keys::kHost);
  p.test = string_or_empty(o, "test");
  p.op = string_or_empty(o, "op");
  p.exe = string_or_empty(o, "exe");
  if (const json::value* pid = o.if_contains("pid"); pid && pid->is_number())
    p.pid = pid->to_number<int64_t>();
  if (const json::value* argv = o.if_contains("argv"); argv && argv->is_array())
    for (const json::value& a : argv->as_array())
      if (a.is_string()) p.argv.emplace_back(a.as_string());
  read_u64(o, "backtrace_min", &p.threshold);
  read_u64(o, "backtrace_depth", &p.depth);
  read_u64(o, "backtrace_sample_bytes", &p.sample_bytes);
  if (const json::value* leaks = o.if_contains("backtrace_leaks"); leaks && leaks->is_bool())
    p.leaks = leaks->as_bool();
  read_u64(o, "backtrace_untracked_blocks", &p.untracked_blocks);
  if (!read_groups(groups->as_array(), &p.groups, reason)) return std::nullopt;
  std::stable_sort(
      p.groups.begin(), p.groups.end(),
      [](const AllocationGroup& a, const AllocationGroup& b) { return a.bytes > b.bytes; });
  if (const json::value* other = o.if_contains("backtraces_other"); other && other->is_object()) {
    OtherAllocations rest;
    const json::object& r = other->as_object();
    read_u64(r, "groups", &rest.groups);
    read_u64(r, "count", &rest.count);
    read_u64(r, "bytes", &rest.bytes);
    read_u64(r, "largest", &rest.largest);
    read_leak_figures(r, &rest.leaks);
    p.other = rest;
  }
  if (const json::value* modules = o.if_contains("backtrace_modules")) {
    if (!modules->is_array()) {
      *reason = "\"backtrace_modules\" is not an array";
      return std::nullopt;
    }
    if (!read_modules(modules->as_array(), &p.modules, reason)) return std::nullopt;
  }
  return p;
}

}  // namespace account
