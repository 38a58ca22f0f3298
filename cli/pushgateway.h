/// account watch --push: the Pushgateway's address and one PUT of metrics in
/// the Prometheus text format, over plain HTTP (Boost.Beast).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>

namespace account {

struct PushTarget {
  std::string url;     ///< as given, for messages
  std::string host;    ///< a name or an address (an IPv6 one without brackets)
  std::string port;    ///< "80" when the URL names none
  std::string prefix;  ///< the URL's path without a trailing '/' ("" for none)
};

/// Parses http://HOST[:PORT][/PATH]. nullopt and *error (what is wrong with
/// it) for anything else, https:// included.
std::optional<PushTarget> parse_push_url(const std::string& url, std::string* error);

/// The path of account watch's group on the Pushgateway:
/// PREFIX/metrics/job/account/instance/HOSTNAME/pid/PID.
std::string push_group_path(const PushTarget& target, const std::string& hostname, pid_t pid);

/// PUTs `metrics` (text format, version 0.0.4) to `path` on the target,
/// replacing what the group held. Gives up after `timeout` in all. Returns ""
/// or the reason ("connection refused", "HTTP 400 Bad Request: ...").
std::string put_metrics(const PushTarget& target, const std::string& path,
                        const std::string& metrics, std::chrono::milliseconds timeout);

}  // namespace account
