/// Where the files account runs with are, relative to the account binary.
/// libaccount.so: $ACCOUNT_LIB, else the build tree (../libaccount/), the
/// configured install libdir, the Debian multiarch libdir
/// (../lib/x86_64-linux-gnu/, where the .deb puts it), ../lib/. account-guard
/// (run_guard.h): next to account (the build tree), else the configured
/// install libexecdir, ../libexec/; no variable names another (root runs it).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace account {

/// The paths tried for the shim when account is the executable `exe`, in order.
/// For /usr/bin/account they include /usr/lib/<multiarch>/libaccount.so, so the
/// packaged tool needs no variable.
std::vector<std::filesystem::path> shim_candidates(const std::filesystem::path& exe);

/// The absolute path of the shim for the executable `exe` (ACCOUNT_LIB first),
/// or "" with *error set.
std::string find_shim_for(const std::filesystem::path& exe, std::string* error);

/// find_shim_for(the running executable).
std::string find_shim(std::string* error);

/// The paths tried for account-guard when account is the executable `exe`.
std::vector<std::filesystem::path> guard_candidates(const std::filesystem::path& exe);

/// The absolute path of account-guard for the running executable, or "" with
/// *error set.
std::string find_guard(std::string* error);

}  // namespace account
