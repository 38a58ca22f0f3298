#include "by_host.h"

#include <algorithm>

namespace account {

std::vector<HostOperation> operations_by_host(const std::vector<Operation>& ops) {
  std::vector<HostOperation> out;
  for (const Operation& o : ops) {
    size_t first = out.size();
    for (const RunFigures& run : o.runs) {
      auto it = std::find_if(out.begin() + ptrdiff_t(first), out.end(),
                             [&](const HostOperation& h) { return h.host == run.host; });
      if (it == out.end()) {
        HostOperation h;
        h.host = run.host;
        h.operation.test = o.test;
        h.operation.op = o.op;
        h.operation.unlabelled = o.unlabelled;
        out.push_back(std::move(h));
        it = out.end() - 1;
      }
      it->operation.runs.push_back(run);
    }
  }
  return out;
}

std::string host_shown(const std::string& host) {
  return host.empty() ? "(no host)" : host;
}

}  // namespace account
