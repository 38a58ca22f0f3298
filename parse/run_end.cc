#include "run_end.h"

#include <fmt/format.h>
#include <string.h>

#include <algorithm>
#include <utility>

namespace account {

bool RunEnd::failed() const {
  switch (how) {
    case How::kExit:
      return code != 0;
    case How::kSignal:
    case How::kKilled:
    case How::kAborted:
    case How::kInterrupted:
      return true;
    case How::kStopped:
    case How::kUnknown:
      break;
  }
  return false;
}

std::string RunEnd::text() const {
  switch (how) {
    case How::kExit:
      return fmt::format("exit {}", code);
    case How::kSignal:
      return fmt::format("signal {}", code);
    case How::kStopped: {
      const char* name = code > 0 && code < 65 ? sigabbrev_np(int(code)) : nullptr;
      return name ? fmt::format("stopped (SIG{})", name) : fmt::format("stopped (signal {})", code);
    }
    case How::kKilled:
      return "killed";
    case How::kAborted:
      return "aborted (timeout)";
    case How::kInterrupted:
      return fmt::format("interrupted (signal {})", code);
    case How::kUnknown:
      break;
  }
  return "unknown";
}

RunEnd end_of_tree(const TreeRecord& t) {
  if (t.interrupted) return {RunEnd::How::kInterrupted, *t.interrupted};
  if (t.aborted) return {RunEnd::How::kAborted, 0};
  auto stop = [&](int64_t signal) {
    return std::find(t.stop_signals.begin(), t.stop_signals.end(), signal) != t.stop_signals.end();
  };
  if (t.signal) return {stop(*t.signal) ? RunEnd::How::kStopped : RunEnd::How::kSignal, *t.signal};
  // A wrapper (git for git-daemon, sh) exits 128+N when its child died of N.
  if (t.exit_code && *t.exit_code > 128 && stop(*t.exit_code - 128))
    return {RunEnd::How::kStopped, *t.exit_code - 128};
  if (t.exit_code) return {RunEnd::How::kExit, *t.exit_code};
  return {};
}

RunEnd end_of_process(const ProcessRecord& p) {
  if (p.end == "exit") return {RunEnd::How::kExit, p.exit_code.value_or(0)};
  if (p.end == "signal") return {RunEnd::How::kSignal, p.signal.value_or(0)};
  if (p.end == "killed") return {RunEnd::How::kKilled, p.signal.value_or(9)};
  return {};
}

std::string ends_summary(const std::vector<RunEnd>& ends) {
  size_t failed =
      size_t(std::count_if(ends.begin(), ends.end(), [](const RunEnd& e) { return e.failed(); }));
  std::vector<std::pair<std::string, size_t>> distinct;
  for (const RunEnd& e : ends) {
    if (failed > 0 && !e.failed()) continue;
    std::string text = e.text();
    auto it = std::find_if(distinct.begin(), distinct.end(),
                           [&](const auto& d) { return d.first == text; });
    if (it == distinct.end())
      distinct.emplace_back(std::move(text), 1);
    else
      ++it->second;
  }
  std::string out;
  for (const auto& [text, count] : distinct) {
    if (!out.empty()) out += ", ";
    if (distinct.size() > 1 && count > 1) out += fmt::format("{}× ", count);
    out += text;
  }
  if (failed > 0) out = fmt::format("{} of {} failed: {}", failed, ends.size(), out);
  return out;
}

}  // namespace account
