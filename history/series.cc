#include "series.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>
#include <variant>

#include "aggregate.h"
#include "record.h"

namespace account {

std::optional<History> load_history(Store& store, const HistoryRange& range, std::string* error) {
  std::optional<std::vector<std::string>> order =
      first_parent_history(range.repo, range.rev, range.since, error);
  if (!order) return std::nullopt;
  std::optional<std::vector<StoredCommit>> stored = store.commits(error);
  if (!stored) return std::nullopt;
  std::unordered_map<std::string, const StoredCommit*> by_sha;
  for (const StoredCommit& c : *stored) by_sha[c.commit.sha] = &c;
  History h;
  h.newest = order->empty() ? "" : order->back();
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const std::string& sha : *order) {
    auto found = by_sha.find(sha);
    if (found == by_sha.end()) continue;
    std::optional<std::vector<std::string>> lines = store.records_at(sha, error);
    if (!lines) return std::nullopt;
    Aggregator aggregator;
    for (const std::string& line : *lines) {
      std::string reason;
      std::optional<Record> record = parse_record(line, &reason);
      if (!record) {
        *error = fmt::format("a record stored at {} does not read: {}", sha.substr(0, 12), reason);
        return std::nullopt;
      }
      const std::string& host =
          std::visit([](const auto& r) -> const std::string& { return r.host; }, *record);
      if (range.host.empty() || host == range.host) aggregator.add(*record);
    }
    bool any = false;
    for (const Operation& o : aggregator.finish()) {
      if ((!range.test.empty() && o.test != range.test) || (!range.op.empty() && o.op != range.op))
        continue;
      std::vector<RunFigures> runs = counted_runs(o, /*include_failed=*/false);
      if (runs.empty()) continue;
      auto [at, added] = index.emplace(std::pair(o.test, o.op), h.series.size());
      if (added) h.series.push_back({o.test, o.op, {}, {}, {}});
      OperationSeries& s = h.series[at->second];
      s.commits.push_back(found->second->commit);
      for (const RunFigures& r : runs) s.hosts.insert(r.host);
      s.runs.push_back(std::move(runs));
      any = true;
    }
    if (any) h.commits.push_back(found->second->commit);
  }
  return h;
}

}  // namespace account
