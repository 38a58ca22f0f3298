/// Where a command's messages and output go.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace account {

/// Where messages for stderr go (one line each, without newline).
using MessageSink = std::function<void(const std::string&)>;
/// Where a command's output goes, piece by piece (a page section by section).
using ByteSink = std::function<void(std::string_view)>;

}  // namespace account
