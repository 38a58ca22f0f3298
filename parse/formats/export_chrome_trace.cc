// Trace Event Format JSON (chrome://tracing, ui.perfetto.dev): one process
// group per (test, operation, run), named with the run's host (a run holds one
// host's records only, so equal pids of two hosts never share a track), one track (thread) per pid
// with a complete event per process image (an exec chain in sequence), and counter tracks for the
// memory of the run's tree and of each process from their timelines. Times are microseconds since
// the earliest record.
#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <optional>

#include "figures.h"
#include "formats/counter_thinning.h"
#include "formats/exporter.h"
#include "metric.h"

namespace account {

namespace json = boost::json;

namespace {

double micros(uint64_t ns, uint64_t origin_ns) {
  return double(int64_t(ns - origin_ns)) / 1000.0;
}

// JSON has no infinity: a sum of huge figures that overflowed is not known.
json::value finite(double v) {
  return std::isfinite(v) ? json::value(v) : json::value(nullptr);
}

json::object metadata(const char* name, int64_t pid, int64_t tid, const std::string& value) {
  return {{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", {{"name", value}}}};
}

// The counter tracks are bounded, so that an export of many --timeline records
// stays a file a trace viewer loads (and its making within memory): the images'
// tracks share kImagePoints points a figure, the runs' tree tracks kTreePoints,
// each track at least kMinPoints (counter_thinning.h). Below that every point
// is kept.
constexpr size_t kImagePoints = size_t(1) << 20;
constexpr size_t kTreePoints = size_t(1) << 20;
constexpr size_t kMinPoints = 16;

// One memory figure of an image over time, (ns, bytes): the timeline's points,
// then the sampler's last reading at the image's end when the record shows it.
// The record's sampled peak covers every sample plus that last reading, so a
// peak above every timeline point (or a peak without a timeline) is that
// reading; otherwise its value is not in the record and no point is made up.
using Series = CounterSeries;

Series series_of(const ProcessRecord& r, const Timeline* tl, bool resident) {
  Series out;
  uint64_t largest = 0;
  if (tl) {
    const std::vector<uint64_t>& values = resident ? tl->rss_bytes : tl->size_bytes;
    for (size_t k = 0; k < tl->t_ms.size() && k < values.size(); ++k) {
      out.emplace_back(r.start_ns + uint64_t(tl->t_ms[k] * 1e6), values[k]);
      largest = std::max(largest, values[k]);
    }
  }
  uint64_t peak = resident ? r.sampled_rss_peak_bytes : r.sampled_size_peak_bytes;
  if (tl && peak > largest) out.emplace_back(std::max(r.end_ns, r.start_ns), peak);
  return out;
}

// The figures the exports carry (figures.h), in base units; one nobody
// counted is null, not 0. An image has no wall time of its own.
void add_figures(json::object& args, const RunFigures& f, bool image) {
  for (const Figure* fig : exported_figures()) {
    if (image && fig->summed == Summed::kSpan) continue;
    json::value v = fig->unit == Unit::kSeconds ? json::value(finite(f.*fig->seconds))
                                                : json::value(f.*fig->bytes);
    args[base_key(*fig)] = metric_counted(f, fig->metric) ? v : nullptr;
  }
}

json::object image_args(const ProcessRow& row) {
  const ProcessRecord& r = *row.record;
  json::array argv;
  for (const std::string& a : r.argv) argv.push_back(json::string(a));
  json::object args{
      {"pid", r.pid}, {"ppid", r.ppid}, {"exe", r.exe}, {"argv", std::move(argv)}, {"end", r.end}};
  add_figures(args, row.figures, /*image=*/true);
  args["malloc_calls"] = r.counted ? json::value(r.malloc_calls) : nullptr;
  args["sampled_size_peak_bytes"] = r.sampled_size_peak_bytes;
  args["sampled_rss_peak_bytes"] = r.sampled_rss_peak_bytes;
  if (r.exit_code) args["exit_code"] = *r.exit_code;
  if (r.signal) args["signal"] = *r.signal;
  return args;
}

json::object run_args(const RunFigures& f) {
  json::object args;
  add_figures(args, f, /*image=*/false);
  args["processes"] = f.processes;
  args["end"] = f.end.text();
  args["counted"] = !f.end.failed();
  if (!f.host.empty()) args["host"] = f.host;
  if (f.processes_without_shim) args["processes_without_shim"] = f.processes_without_shim;
  return args;
}

// Boost.JSON writes doubles as "5.360333E3"; valid, but trace viewers and
// people read "5360.333" better. Rewrites every number with an exponent, outside
// strings, in fmt's shortest plain form.
std::string plain_numbers(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\') out += text[++i];
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c != '-' && (c < '0' || c > '9')) {
      out += c;
      continue;
    }
    size_t end = text.find_first_not_of("0123456789+-.eE", i);
    std::string number = text.substr(i, end - i);
    if (number.find_first_of("eE") != std::string::npos)
      number = fmt::format("{}", std::strtod(number.c_str(), nullptr));
    out += number;
    i = end - 1;
  }
  return out;
}

// The trace's events, written out in pieces of about a MiB as they are made:
// memory holds one run's points, never the whole trace.
class EventWriter {
 public:
  explicit EventWriter(const ByteSink& out) : out_(out) {}
  void text(std::string_view raw) {
    buffer_ += raw;
    if (buffer_.size() >= kFlushBytes) flush();
  }
  void event(const json::object& e) { separated(plain_numbers(json::serialize(e))); }
  // {"ph":"C","name":N,"pid":P,"tid":0,"ts":T,"args":{"bytes":B}}, as event()
  // would write it, without building the object (there are millions).
  void counter(const std::string& quoted_name, int64_t pid, double ts, uint64_t bytes) {
    buffer_ += first_ ? "" : ",";
    first_ = false;
    fmt::format_to(std::back_inserter(buffer_),
                   R"({{"ph":"C","name":{},"pid":{},"tid":0,"ts":{},"args":{{"bytes":{}}}}})",
                   quoted_name, pid, ts, bytes);
    if (buffer_.size() >= kFlushBytes) flush();
  }
  void flush() {
    if (!buffer_.empty()) out_(buffer_);
    buffer_.clear();
  }

 private:
  static constexpr size_t kFlushBytes = size_t(1) << 20;
  void separated(const std::string& e) {
    if (!first_) buffer_ += ',';
    first_ = false;
    text(e);
  }
  const ByteSink& out_;
  std::string buffer_;
  bool first_ = true;
};

std::string quoted(const std::string& s) {
  return json::serialize(json::string_view(s));
}

// The run's tree memory: at every point of any image's series, the sum over
// the images alive then, each at its latest point (0 after it ended).
void tree_counter(const RunFigures& run, const std::vector<Series>& series, bool resident,
                  int64_t group, uint64_t origin, size_t cap, EventWriter* events) {
  struct Point {
    uint64_t t_ns;
    size_t image;
    uint64_t bytes;
  };
  std::vector<Point> points;
  const auto& rows = run.process_rows;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Series& s = series[i];
    if (s.empty()) continue;
    for (const auto& [t, bytes] : s) points.push_back({t, i, bytes});
    const ProcessRecord& r = *rows[i].record;
    points.push_back({std::max(r.end_ns, r.start_ns), i, 0});  // gone at its end
  }
  if (points.empty()) return;
  std::stable_sort(points.begin(), points.end(),
                   [](const Point& a, const Point& b) { return a.t_ns < b.t_ns; });
  std::vector<uint64_t> latest(rows.size());
  // Wide enough that no sum of 64-bit figures wraps; shown saturated.
  unsigned __int128 sum = 0;
  Series sums;
  for (size_t k = 0; k < points.size(); ++k) {
    const Point& p = points[k];
    sum = sum - latest[p.image] + p.bytes;
    latest[p.image] = p.bytes;
    if (k + 1 < points.size() && points[k + 1].t_ns == p.t_ns) continue;  // one event an instant
    sums.emplace_back(p.t_ns, sum > UINT64_MAX ? UINT64_MAX : uint64_t(sum));
  }
  std::string name = quoted(resident ? "tree resident" : "tree size");
  for (const auto& [t, bytes] : peak_thinned(std::move(sums), cap))
    events->counter(name, group, micros(t, origin), bytes);
}

class ChromeTraceFormat : public OutputFormat {
 public:
  void write(FormatInput input, const ByteSink& out) const override {
    uint64_t origin = std::numeric_limits<uint64_t>::max();
    size_t images = 0, runs = 0;
    for (const Operation& o : export_ops(input)) {
      runs += o.runs.size();
      for (const RunFigures& run : o.runs) {
        if (run.end_ns > 0) origin = std::min(origin, run.start_ns);
        for (const ProcessRow& row : run.process_rows) {
          origin = std::min(origin, row.record->start_ns);
          if (row.record->timeline) ++images;
        }
      }
    }
    if (origin == std::numeric_limits<uint64_t>::max()) origin = 0;
    size_t image_cap = points_per_track(kImagePoints, images, kMinPoints);
    size_t tree_cap = points_per_track(kTreePoints, runs, kMinPoints);

    EventWriter events(out);
    events.text("{\"traceEvents\":[");
    int64_t group = 0;
    for (const Operation& o : export_ops(input)) {
      for (size_t run = 0; run < o.runs.size(); ++run) {
        const RunFigures& figures = o.runs[run];
        ++group;
        // Runs are numbered per host: "run 1 on a", "run 1 on b".
        auto same_host = [&](const RunFigures& r) { return r.host == figures.host; };
        size_t nth =
            1 + size_t(std::count_if(o.runs.begin(), o.runs.begin() + ptrdiff_t(run), same_host));
        std::string label = fmt::format("{} / {} / run {}", o.test.empty() ? "(no test)" : o.test,
                                        o.op.empty() ? "(no operation)" : o.op, nth);
        if (!figures.host.empty()) label += fmt::format(" on {}", figures.host);
        events.event(metadata("process_name", group, 0, label));
        events.event(json::object{{"ph", "M"},
                                  {"name", "process_sort_index"},
                                  {"pid", group},
                                  {"tid", 0},
                                  {"args", {{"sort_index", group}}}});
        // The run as a whole on track 0, its figures those of account report,
        // over the run's window (its tree record's, also when no process
        // record is in it: a static command).
        events.event(metadata("thread_name", group, 0, "run"));
        if (figures.end_ns > 0)
          events.event(json::object{{"ph", "X"},
                                    {"name", label},
                                    {"cat", "run"},
                                    {"pid", group},
                                    {"tid", 0},
                                    {"ts", micros(figures.start_ns, origin)},
                                    {"dur", double(figures.end_ns - figures.start_ns) / 1000.0},
                                    {"args", run_args(figures)}});
        // Each image's series, read back from the spool once, for its own
        // tracks and the run's tree tracks.
        std::vector<Series> sizes, residents;
        std::vector<int64_t> named;
        for (const ProcessRow& row : figures.process_rows) {
          const ProcessRecord& r = *row.record;
          if (std::find(named.begin(), named.end(), r.pid) == named.end()) {
            named.push_back(r.pid);
            events.event(metadata("thread_name", group, r.pid,
                                  fmt::format("pid {} {}", r.pid, row.program)));
          }
          events.event(
              json::object{{"ph", "X"},
                           {"name", row.program.empty() ? r.exe : row.program},
                           {"cat", "process"},
                           {"pid", group},
                           {"tid", r.pid},
                           {"ts", micros(r.start_ns, origin)},
                           {"dur", double(std::max(r.end_ns, r.start_ns) - r.start_ns) / 1000.0},
                           {"args", image_args(row)}});
          std::optional<Timeline> points;
          if (r.timeline) points = input.spool ? input.spool->get(*r.timeline) : *r.timeline;
          const Timeline* tl = points ? &*points : nullptr;
          sizes.push_back(peak_thinned(series_of(r, tl, false), image_cap));
          residents.push_back(peak_thinned(series_of(r, tl, true), image_cap));
          // The image's size and resident tracks, named by pid: the images of
          // an exec chain continue one another's tracks.
          for (bool resident : {false, true}) {
            std::string name =
                quoted(fmt::format("pid {} {}", r.pid, resident ? "resident" : "size"));
            for (const auto& [t, bytes] : resident ? residents.back() : sizes.back())
              events.counter(name, group, micros(t, origin), bytes);
          }
        }
        tree_counter(figures, sizes, false, group, origin, tree_cap, &events);
        tree_counter(figures, residents, true, group, origin, tree_cap, &events);
      }
    }
    events.text(fmt::format(
        R"(],"displayTimeUnit":"ms","otherData":{{"generator":"account export","origin_ns":{}}}}})",
        origin));
    events.text("\n");
    events.flush();
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_chrome_trace_format() {
  return std::make_unique<ChromeTraceFormat>();
}

}  // namespace account
