#include "commands/read_inputs.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>

#include "bad_lines.h"
#include "commands/status.h"

namespace account {

// `spool`: where the records' timelines wait (pages read each chart's back).
int read_inputs(std::vector<Input>& inputs, bool strict, const MessageSink& err,
                TimelineSpool* spool) {
  uint64_t records = 0, bad = 0;
  BadLineMessages bad_lines(err);
  std::string names;
  for (Input& in : inputs) {
    ReadSummary s;
    read_records(
        *in.reader, strict,
        [&](Record&& r) {
          if (auto* p = std::get_if<ProcessRecord>(&r); p && p->timeline && spool)
            spool->put(*p->timeline);
          in.into->add(r);
        },
        [&](const BadLine& b) { bad_lines.add(b); }, &s);
    records += s.records;
    bad += s.bad_lines;
    names += (names.empty() ? "" : ", ") + in.reader->name();
    if (!in.reader->error().empty()) {
      err("account: " + in.reader->error());
      return 1;
    }
    if (s.stopped) {
      err("account: stopped at the first bad line (--strict)");
      return 1;
    }
    if (s.records == 0 && s.bad_lines == 0)
      err(fmt::format("account: {}: no records in this input", in.reader->name()));
  }
  bad_lines.finish();
  if (bad > 0 && records == 0) {
    err(fmt::format("account: no valid record in {} ({} bad line{})", names, bad,
                    bad == 1 ? "" : "s"));
    return 1;
  }
  if (bad > 0) {
    err(fmt::format("account: skipped {} bad line{}; {} record{} read", bad, bad == 1 ? "" : "s",
                    records, records == 1 ? "" : "s"));
    return kStatusLinesSkipped;
  }
  return 0;
}

// One line on stderr when unlabelled runs were grouped by their command line.
void note_unlabelled(const std::vector<std::vector<Operation>*>& all, const MessageSink& err) {
  size_t runs = 0, commands = 0;
  for (const auto* ops : all)
    for (const Operation& o : *ops)
      if (o.unlabelled) runs += o.runs.size(), ++commands;
  if (runs == 0) return;
  err(fmt::format(
      "account: {} run{} without test and op labels, grouped by command line into {} row{}; "
      "label runs with account run --test T --op O",
      runs, runs == 1 ? "" : "s", commands, commands == 1 ? "" : "s"));
}

// Opens every input before reading any, so a wrong path fails at once.
// With `missing`, a file that does not exist is no error: its Input has no
// reader and its entry in *missing is true.
bool open_all(const std::vector<std::string>& files, std::vector<Input>* inputs,
              const MessageSink& err, std::vector<bool>* missing) {
  bool ok = true;
  for (const std::string& f : files) {
    std::string error;
    auto reader = LineReader::open(f, &error);
    struct stat st;
    bool absent = !reader && f != "-" && ::stat(f.c_str(), &st) != 0 && errno == ENOENT;
    if (missing) missing->push_back(absent);
    if (!reader && !(absent && missing)) {
      err("account: " + error);
      ok = false;
    }
    inputs->push_back(Input{std::move(reader), nullptr});
  }
  return ok;
}

}  // namespace account
