#include "pushgateway.h"

#include <fmt/format.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

namespace account {

namespace beast = boost::beast;
namespace http = beast::http;
namespace asio = boost::asio;

std::optional<PushTarget> parse_push_url(const std::string& url, std::string* error) {
  const std::string scheme = "http://";
  if (url.rfind("https://", 0) == 0) {
    *error = "https:// is not supported: the Pushgateway must be reached over plain http://";
    return std::nullopt;
  }
  if (url.rfind(scheme, 0) != 0) {
    *error = "not an http://HOST[:PORT][/PATH] URL";
    return std::nullopt;
  }
  // Every byte of the URL goes into the request line or a header: a CR or LF
  // would end them early (header injection), a space would split the line.
  for (size_t i = 0; i < url.size(); ++i) {
    auto c = static_cast<unsigned char>(url[i]);
    if (c <= 0x20 || c >= 0x7f) {
      *error =
          fmt::format("byte {} is a control character, a space or not ASCII (0x{:02x})", i + 1, c);
      return std::nullopt;
    }
  }
  PushTarget t;
  t.url = url;
  std::string rest = url.substr(scheme.size());
  size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) t.prefix = rest.substr(slash);
  while (!t.prefix.empty() && t.prefix.back() == '/') t.prefix.pop_back();
  if (authority.find('@') != std::string::npos ||
      t.prefix.find_first_of("?#") != std::string::npos) {
    *error = "a user, a query or a fragment is not supported";
    return std::nullopt;
  }
  std::string port_text;
  bool has_port = false;
  if (!authority.empty() && authority[0] == '[') {  // [IPv6]:port
    size_t close = authority.find(']');
    if (close == std::string::npos) {
      *error = "no ']' after the IPv6 address";
      return std::nullopt;
    }
    t.host = authority.substr(1, close - 1);
    std::string after = authority.substr(close + 1);
    if (!after.empty() && after[0] != ':') {
      *error = "':PORT' or nothing must follow the IPv6 address";
      return std::nullopt;
    }
    has_port = !after.empty();
    if (has_port) port_text = after.substr(1);
  } else {
    size_t colon = authority.find(':');
    t.host = authority.substr(0, colon);
    has_port = colon != std::string::npos;
    if (has_port) port_text = authority.substr(colon + 1);
  }
  if (t.host.empty()) {
    *error = "no host";
    return std::nullopt;
  }
  t.port = "80";
  if (has_port) {
    uint64_t port = 0;
    bool digits = !port_text.empty() && port_text.size() <= 5 &&
                  port_text.find_first_not_of("0123456789") == std::string::npos;
    if (digits) port = std::stoull(port_text);
    if (!digits || port < 1 || port > 65535) {
      *error = fmt::format("port '{}' is not 1-65535", port_text);
      return std::nullopt;
    }
    t.port = port_text;
  }
  return t;
}

namespace {

// base64url (RFC 4648 section 5), as the Pushgateway reads a LABEL@base64 value.
std::string base64url(const std::string& bytes) {
  static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 |
                 uint8_t(bytes[i + 2]);
    for (int shift : {18, 12, 6, 0}) out += digits[(v >> shift) & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out += digits[(v >> 18) & 63];
    out += digits[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? digits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

// "/NAME/VALUE" of one grouping label: as it is when every byte is safe in a
// path segment, else NAME@base64/VALUE in base64url ("=" for an empty one).
std::string label_segment(const std::string& name, const std::string& value) {
  bool plain = !value.empty() && value.find_first_not_of(
                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                     "0123456789-_.~") == std::string::npos;
  if (plain) return "/" + name + "/" + value;
  return "/" + name + "@base64/" + (value.empty() ? "=" : base64url(value));
}

}  // namespace

std::string push_group_path(const PushTarget& target, const std::string& hostname, pid_t pid) {
  return fmt::format("{}/metrics/job/account{}/pid/{}", target.prefix,
                     label_segment("instance", hostname), pid);
}

namespace {

// getaddrinfo has no deadline, and asio's resolver thread is joined when its
// io_context ends: a name server that never answers held a push for seconds
// past its deadline. The name is looked up on a thread of its own, which is
// left behind (detached) if the deadline passes first.
struct Lookup {
  std::mutex mutex;
  std::condition_variable changed;
  bool done = false;
  asio::ip::tcp::resolver::results_type results;
  beast::error_code error;
};

std::shared_ptr<Lookup> start_lookup(const std::string& host, const std::string& port) {
  auto lookup = std::make_shared<Lookup>();
  std::thread([lookup, host, port] {
    asio::io_context io;
    asio::ip::tcp::resolver resolver(io);
    beast::error_code ec;
    auto results = resolver.resolve(host, port, ec);
    std::lock_guard<std::mutex> hold(lookup->mutex);
    lookup->results = results;
    lookup->error = ec;
    lookup->done = true;
    lookup->changed.notify_all();
  }).detach();
  return lookup;
}

}  // namespace

std::string put_metrics(const PushTarget& target, const std::string& path,
                        const std::string& metrics, std::chrono::milliseconds timeout) {
  asio::io_context io;
  beast::tcp_stream stream(io);
  http::request<http::string_body> request{http::verb::put, path.empty() ? "/" : path, 11};
  bool ipv6 = target.host.find(':') != std::string::npos;
  request.set(http::field::host,
              (ipv6 ? "[" + target.host + "]" : target.host) + ":" + target.port);
  request.set(http::field::user_agent, "account watch");
  // The Pushgateway's name for the Prometheus text format.
  request.set(http::field::content_type, "text/plain; version=0.0.4");
  request.body() = metrics;
  request.prepare_payload();
  beast::flat_buffer buffer;
  http::response<http::string_body> response;
  std::string failure;
  bool done = false;
  auto fail = [&](const char* step, beast::error_code ec) {
    failure = ec == beast::error::timeout
                  ? fmt::format("no answer within {} ms ({})", timeout.count(), step)
                  : fmt::format("{}: {}", step, ec.message());
    done = true;
  };

  // One deadline for resolving, connecting, sending and reading the answer.
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto lookup = start_lookup(target.host, target.port);
  {
    std::unique_lock<std::mutex> hold(lookup->mutex);
    if (!lookup->changed.wait_until(hold, deadline, [&] { return lookup->done; }))
      return fmt::format("no answer within {} ms (resolve {})", timeout.count(), target.host);
    if (lookup->error) return fmt::format("resolve: {}", lookup->error.message());
  }
  stream.expires_at(deadline);
  stream.async_connect(lookup->results, [&](beast::error_code ec, auto) {
    if (ec) return fail("connect", ec);
    http::async_write(stream, request, [&](beast::error_code ec, size_t) {
      if (ec) return fail("send", ec);
      http::async_read(stream, buffer, response, [&](beast::error_code ec, size_t) {
        if (ec) return fail("read the answer", ec);
        done = true;
      });
    });
  });
  io.run_until(deadline + std::chrono::milliseconds(100));
  if (!done) return fmt::format("no answer within {} ms", timeout.count());
  if (!failure.empty()) return failure;
  unsigned status = response.result_int();
  if (status / 100 == 2) return "";
  std::string body = response.body().substr(0, response.body().find('\n'));
  return fmt::format("HTTP {} {}{}{}", status, std::string(response.reason()),
                     body.empty() ? "" : ": ", body.substr(0, 200));
}

}  // namespace account
