/// One operation's runs host by host: what `account report --by host` shows
/// and what OpenMetrics labels with `host`. The Aggregator already keeps the
/// hosts apart (no run mixes two); this only splits an operation's runs.
#pragma once

#include <string>
#include <vector>

#include "aggregate.h"

namespace account {

/// The runs of one (test, operation) on one host.
struct HostOperation {
  std::string host;  ///< "" for records without a host (older writers)
  Operation operation;
};

/// Every operation split by its runs' hosts, in order: operations as given,
/// each one's hosts in order of first appearance.
std::vector<HostOperation> operations_by_host(const std::vector<Operation>& ops);

/// How tables and trace labels name a host: the host, or "(no host)" for
/// records written before records carried one.
std::string host_shown(const std::string& host);

}  // namespace account
