/// Where the shim goes in the command's LD_PRELOAD: first, so that its malloc
/// is the program's, behind only the sanitizer runtimes the user preloaded
/// first. GCC's AddressSanitizer (and HWASan, TSan) refuse to start unless
/// their runtime is the first library, which with a dynamic runtime
/// (libasan.so) only LD_PRELOAD can arrange.
#pragma once

#include <string>
#include <string_view>

namespace account {

/// Whether `entry` of LD_PRELOAD names a sanitizer's runtime (libasan.so.8,
/// libclang_rt.asan-x86_64.so, ...).
bool is_sanitizer_runtime(std::string_view entry);

/// LD_PRELOAD for the command: `preload`'s leading sanitizer runtimes, the
/// shim, then the rest of `preload` (entries split at ':' and ' ', as ld.so
/// splits them). `preload` may be null.
std::string preload_with_shim(const std::string& shim, const char* preload);

/// `preload` without the shim (account run --prepare's command): its other
/// entries, ':'-separated; "" when none is left.
std::string preload_without_shim(const std::string& shim, const char* preload);

}  // namespace account
