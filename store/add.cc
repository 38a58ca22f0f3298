#include "add.h"

#include <fmt/format.h>
#include <sys/utsname.h>

#include <algorithm>
#include <boost/uuid/detail/sha1.hpp>
#include <variant>

#include "reader.h"
#include "record.h"

namespace account {
namespace {

std::string this_host() {
  struct utsname u;
  return uname(&u) == 0 ? u.nodename : "";
}

const std::string& host_of(const Record& r) {
  return std::visit([](const auto& x) -> const std::string& { return x.host; }, r);
}

}  // namespace

std::string record_hash(const std::string& line) {
  boost::uuids::detail::sha1 sha;
  sha.process_bytes(line.data(), line.size());
  boost::uuids::detail::sha1::digest_type digest;
  sha.get_digest(digest);
  std::string hex;
  for (unsigned word : digest) hex += fmt::format("{:08x}", word);
  return hex;
}

std::optional<std::string> bad_label(const std::string& label) {
  size_t eq = label.find('=');
  if (eq == std::string::npos || eq == 0)
    return fmt::format("--label '{}' is not KEY=VALUE", label);
  for (char c : label.substr(0, eq))
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      return fmt::format("--label '{}': the key may hold letters, digits, '_', '-' and '.'", label);
  return std::nullopt;
}

std::optional<PreparedAdd> prepare_add(const AddRequest& request, std::string* error) {
  for (const std::string& l : request.labels)
    if (std::optional<std::string> bad = bad_label(l)) {
      *error = *bad;
      return std::nullopt;
    }
  PreparedAdd outcome;
  std::optional<CommitInfo> commit = resolve_commit(request.repo, request.commit, error);
  if (!commit) return std::nullopt;
  outcome.commit = *commit;
  std::vector<std::string> labels = request.labels;
  std::sort(labels.begin(), labels.end());
  for (const std::string& file : request.files) {
    std::string open_error;
    std::unique_ptr<LineReader> reader = LineReader::open(file, &open_error);
    if (!reader) {
      *error = open_error;
      return std::nullopt;
    }
    Batch b;
    b.commit = *commit;
    b.branch = request.branch;
    b.labels = labels;
    b.source = reader->name();
    std::string_view line;
    bool complete = true;
    while (reader->next(&line, &complete)) {
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      std::string reason;
      std::optional<Record> record = parse_record(line, &reason);
      if (!record || !complete) {
        *error = fmt::format("{}:{}: {}: nothing stored", reader->name(), reader->line_number(),
                             record ? "the last line has no newline (a writer cut short)" : reason);
        return std::nullopt;
      }
      if (b.host.empty()) b.host = host_of(*record);
      b.lines.emplace_back(line);
      b.hashes.push_back(record_hash(b.lines.back()));
    }
    if (!reader->error().empty()) {
      *error = fmt::format("cannot read {}: {}", reader->name(), reader->error());
      return std::nullopt;
    }
    if (b.host.empty()) b.host = this_host();
    outcome.records += b.lines.size();
    outcome.batches.push_back(std::move(b));
  }
  return outcome;
}

}  // namespace account
